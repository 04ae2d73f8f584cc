import mariadb from 'mariadb'

/** The MySQL/MariaDB server the tests use: A2A_TEST_MYSQL_URL, default mysql://root@127.0.0.1:3306/mysql. */
export const mysqlServer = new URL(process.env.A2A_TEST_MYSQL_URL ?? 'mysql://root@127.0.0.1:3306/mysql')

/**
 * A connection to the server of `url` (default {@link mysqlServer}) as its user, on no database
 * unless `config` names one.
 */
export function mysqlConnection(url: URL | string = mysqlServer, config: mariadb.ConnectionConfig = {}): Promise<mariadb.Connection> {
  const server = new URL(url)
  return mariadb.createConnection({
    host: server.hostname,
    port: Number(server.port || 3306),
    user: decodeURIComponent(server.username),
    password: decodeURIComponent(server.password),
    ...config,
  })
}
