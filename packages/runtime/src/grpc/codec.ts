/**
 * Protocol buffer codecs of the A2AService messages, in ProtoJSON form on the runtime's side.
 * Message types are loaded at run time: protobufjs reflection over the generated descriptor of the
 * specification's a2a.proto (./a2a-descriptor.ts), which compiles each type's encoder and decoder
 * on first use, as fast as its generated static code. Loading, not generating TypeScript
 * classes, because the runtime never handles messages as classes: every binding meets at the
 * ProtoJSON objects the method table takes and answers.
 * @module
 */
import protobuf from 'protobufjs'
import { A2A_DESCRIPTOR } from './a2a-descriptor.js'
import { useProtoJson } from './proto-json.js'

export const PACKAGE = 'lf.a2a.v1'
export const SERVICE = `${PACKAGE}.A2AService`

/** How decoded messages become objects: ProtoJSON's enum names, base64 bytes, set fields only. */
const TO_OBJECT: protobuf.IConversionOptions = { enums: String, bytes: String, longs: Number, defaults: false, json: true }

export interface Codec {
  encode(value: object): Buffer
  decode(bytes: Buffer): Record<string, unknown>
}

let loaded: protobuf.Root | undefined

export function a2aRoot(): protobuf.Root {
  if (loaded) return loaded
  const root = protobuf.Root.fromJSON(A2A_DESCRIPTOR as protobuf.INamespace)
  root.resolveAll()
  useProtoJson(root)
  return (loaded = root)
}

const codecs = new Map<string, Codec>()

/** The codec of a message type, by its full name (`lf.a2a.v1.Task`, `google.rpc.Status`). */
export function codecOf(typeName: string): Codec {
  let codec = codecs.get(typeName)
  if (!codec) {
    const type = a2aRoot().lookupType(typeName)
    codec = {
      encode: (value) => {
        const bytes = type.encode(value).finish()
        // On Node protobufjs writes Buffers already; grpc-js takes nothing else.
        return Buffer.isBuffer(bytes) ? bytes : Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength)
      },
      decode: (bytes) => type.toObject(type.decode(bytes), TO_OBJECT),
    }
    codecs.set(typeName, codec)
  }
  return codec
}

export interface MethodShape {
  name: string
  request: string
  response: string
  streaming: boolean
}

/** The service's methods as the descriptor declares them. */
export function serviceMethods(): MethodShape[] {
  const service = a2aRoot().lookupService(SERVICE)
  return service.methodsArray.map((method) => {
    method.resolve()
    return {
      name: method.name,
      request: method.resolvedRequestType!.fullName.slice(1),
      response: method.resolvedResponseType!.fullName.slice(1),
      streaming: Boolean(method.responseStream),
    }
  })
}
