/** Constants the bench driver and its server processes agree on. */
export const BENCH_TOKEN = 'bench-token'
