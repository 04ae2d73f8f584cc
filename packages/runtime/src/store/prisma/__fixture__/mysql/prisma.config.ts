import { prismaConfig } from '../../../../prisma-config.js'

// The runtime's own config, as apps use it: here only for `prisma generate` (see schema.prisma).
export default prismaConfig({ defaultUrl: 'mysql://root@127.0.0.1:3306/mysql', schema: '.' })
