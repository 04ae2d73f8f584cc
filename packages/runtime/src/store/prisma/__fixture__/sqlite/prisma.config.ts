import { prismaConfig } from '../../../../prisma-config.js'

// The runtime's own config, as apps use it. Paths here are relative to this file: the folder holds
// schema.prisma and the rendered a2a.prisma.
export default prismaConfig({ defaultUrl: 'file:./fixture.db', schema: '.' })
