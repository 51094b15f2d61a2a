import { Context, Effect, Layer } from "effect"
import { execFileSync } from "node:child_process"
import {
  createDecipheriv,
  createECDH,
  createPublicKey,
  generateKeyPairSync,
  hkdfSync,
  randomBytes,
  verify as verifySignature
} from "node:crypto"
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs"
import http2 from "node:http2"
import https from "node:https"
import type { AddressInfo } from "node:net"
import { tmpdir } from "node:os"
import { join } from "node:path"
import webpush from "web-push"

/**
 * Local stand-ins for the three push services (effect-notes §12), each checking what a real one checks: the web
 * push service verifies the VAPID JWT and decrypts the aes128gcm payload with the subscription's private key; FCM's
 * token endpoint verifies the service-account assertion (RS256) and its send endpoint the bearer; APNs (HTTP/2)
 * verifies the ES256 provider token and `apns-topic`. A path or token containing `gone` (APNs: starting `dead`)
 * answers 410 (APNs, web) or 404 (FCM); `broken` (APNs: `bad`) answers 500. Everything received is recorded.
 */

export interface Received {
  readonly channel: "web" | "fcm" | "apns"
  /** The web endpoint's path, the FCM token or the APNs device token. */
  readonly target: string
  readonly payload: Record<string, unknown>
}

/** A browser's subscription: its keys, and the private half the push service never sees (the fake decrypts). */
export interface WebDevice {
  readonly endpoint: string
  readonly keys: { readonly p256dh: string; readonly auth: string }
}

export interface PushFakesShape {
  readonly received: Array<Received>
  /** Problems a fake found in a request (bad signature, wrong header): a test expects none. */
  readonly rejected: Array<string>
  /** A new browser subscription at the web fake; `name` becomes its path. */
  readonly webDevice: (name: string) => WebDevice
  readonly config: Record<string, string>
  readonly vapidPublicKey: string
}

export class PushFakes extends Context.Tag("PushFakes")<PushFakes, PushFakesShape>() {}

const b64url = (b: Buffer) => b.toString("base64url")

const verifyJwt = (jwt: string, key: Parameters<typeof verifySignature>[2], alg: "ES256" | "RS256") => {
  const [h, p, s] = jwt.split(".")
  if (h === undefined || p === undefined || s === undefined) throw new Error("not a JWT")
  const ok = verifySignature(
    "sha256",
    Buffer.from(`${h}.${p}`),
    alg === "ES256" ? { key: key as never, dsaEncoding: "ieee-p1363" } : key,
    Buffer.from(s, "base64url")
  )
  if (!ok) throw new Error(`${alg} signature does not verify`)
  return {
    header: JSON.parse(Buffer.from(h, "base64url").toString()) as Record<string, unknown>,
    claims: JSON.parse(Buffer.from(p, "base64url").toString()) as Record<string, unknown>
  }
}

/** RFC 8291 decryption of an aes128gcm body with the subscription's private key and auth secret. */
const decrypt = (body: Buffer, ua: ReturnType<typeof createECDH>, auth: Buffer) => {
  const salt = body.subarray(0, 16)
  const idlen = body[20]!
  const asPub = body.subarray(21, 21 + idlen)
  const rec = body.subarray(21 + idlen)
  const info = Buffer.concat([Buffer.from("WebPush: info\0"), ua.getPublicKey(), asPub])
  const ikm = Buffer.from(hkdfSync("sha256", ua.computeSecret(asPub), auth, info, 32))
  const cek = Buffer.from(hkdfSync("sha256", ikm, salt, Buffer.from("Content-Encoding: aes128gcm\0"), 16))
  const nonce = Buffer.from(hkdfSync("sha256", ikm, salt, Buffer.from("Content-Encoding: nonce\0"), 12))
  const d = createDecipheriv("aes-128-gcm", cek, nonce)
  d.setAuthTag(rec.subarray(-16))
  const plain = Buffer.concat([d.update(rec.subarray(0, -16)), d.final()])
  let end = plain.length - 1
  while (plain[end] === 0) end--
  return JSON.parse(plain.subarray(0, end).toString()) as Record<string, unknown>
}

// APNs tokens are hexadecimal: theirs start with `dead` (gone) or `bad` (broken).
const statusFor = (target: string, goneStatus: number) =>
  target.includes("gone") || target.startsWith("dead")
    ? goneStatus
    : target.includes("broken") || target.startsWith("bad")
    ? 500
    : undefined

const readBody = (req: NodeJS.ReadableStream) =>
  new Promise<Buffer>((resolve) => {
    const chunks: Array<Buffer> = []
    req.on("data", (c: Buffer) => chunks.push(c))
    req.on("end", () => resolve(Buffer.concat(chunks)))
  })

const listen = (server: https.Server | http2.Http2SecureServer) =>
  new Promise<number>((resolve) => server.listen(0, "127.0.0.1", () => resolve((server.address() as AddressInfo).port)))

const APNS_TOPIC = "org.timebank.app"

/** Starts the three fakes with a fresh self-signed certificate; gives the configuration that points the API at them. */
export const startPushFakes = Effect.acquireRelease(
  Effect.promise(async () => {
    const dir = mkdtempSync(join(tmpdir(), "push-fakes-"))
    const keyFile = join(dir, "key.pem")
    const certFile = join(dir, "cert.pem")
    execFileSync("openssl", [
      ...["req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes", "-days", "2"],
      ...["-subj", "/CN=localhost", "-addext", "subjectAltName=IP:127.0.0.1", "-keyout", keyFile, "-out", certFile]
    ], { stdio: "ignore" })
    const tls = { key: readFileSync(keyFile), cert: readFileSync(certFile) }
    const received: Array<Received> = []
    const rejected: Array<string> = []
    const devices = new Map<string, { ua: ReturnType<typeof createECDH>; auth: Buffer }>()
    const vapid = webpush.generateVAPIDKeys()

    // Web push service.
    const web = https.createServer(tls, (req, res) => {
      void readBody(req).then((body) => {
        const path = req.url ?? ""
        try {
          const match = /^vapid t=([^,]+), k=(.+)$/.exec(req.headers["authorization"] ?? "")
          if (match === null) throw new Error(`no VAPID authorization: ${req.headers["authorization"]}`)
          if (match[2] !== vapid.publicKey) throw new Error("VAPID k is not the configured public key")
          const point = Buffer.from(match[2]!, "base64url")
          const key = createPublicKey({
            key: { kty: "EC", crv: "P-256", x: b64url(point.subarray(1, 33)), y: b64url(point.subarray(33, 65)) },
            format: "jwk"
          })
          const { claims } = verifyJwt(match[1]!, key, "ES256")
          if (claims["aud"] !== `https://127.0.0.1:${webPort}`) throw new Error(`VAPID aud ${String(claims["aud"])}`)
          if (req.headers["content-encoding"] !== "aes128gcm") throw new Error("not aes128gcm")
          const device = devices.get(path)
          if (device === undefined) throw new Error(`unknown endpoint ${path}`)
          received.push({ channel: "web", target: path, payload: decrypt(body, device.ua, device.auth) })
          res.writeHead(statusFor(path, 410) ?? 201).end()
        } catch (e) {
          rejected.push(`web: ${String(e)}`)
          res.writeHead(400).end()
        }
      })
    })

    // FCM: the OAuth token endpoint and HTTP v1 send.
    const { privateKey: saKey, publicKey: saPublic } = generateKeyPairSync("rsa", { modulusLength: 2048 })
    const accessTokens = new Set<string>()
    const fcm = https.createServer(tls, (req, res) => {
      void readBody(req).then((body) => {
        try {
          if (req.url === "/token") {
            const form = new URLSearchParams(body.toString())
            if (form.get("grant_type") !== "urn:ietf:params:oauth:grant-type:jwt-bearer") throw new Error("grant_type")
            const { claims, header } = verifyJwt(form.get("assertion") ?? "", saPublic, "RS256")
            if (header["alg"] !== "RS256") throw new Error("assertion alg")
            if (claims["iss"] !== "push@timebank-test.iam.gserviceaccount.com") throw new Error("assertion iss")
            if (claims["aud"] !== `https://127.0.0.1:${fcmPort}/token`) throw new Error("assertion aud")
            if (claims["scope"] !== "https://www.googleapis.com/auth/firebase.messaging") throw new Error("scope")
            const token = `ya29.${randomBytes(8).toString("hex")}`
            accessTokens.add(token)
            return res.writeHead(200, { "content-type": "application/json" })
              .end(JSON.stringify({ access_token: token, expires_in: 3599, token_type: "Bearer" }))
          }
          if (req.url !== "/v1/projects/timebank-test/messages:send") throw new Error(`path ${req.url}`)
          const bearer = (req.headers["authorization"] ?? "").replace(/^Bearer /, "")
          if (!accessTokens.has(bearer)) throw new Error("unknown bearer")
          const { message } = JSON.parse(body.toString()) as { message: { token: string } & Record<string, unknown> }
          received.push({ channel: "fcm", target: message.token, payload: message })
          res.writeHead(statusFor(message.token, 404) ?? 200, { "content-type": "application/json" }).end("{}")
        } catch (e) {
          rejected.push(`fcm: ${String(e)}`)
          res.writeHead(400).end()
        }
      })
    })

    // APNs over HTTP/2.
    const { privateKey: apnsKey, publicKey: apnsPublic } = generateKeyPairSync("ec", { namedCurve: "P-256" })
    const apns = http2.createSecureServer(tls)
    apns.on("stream", (stream, headers) => {
      void readBody(stream).then((body) => {
        const token = String(headers[":path"] ?? "").replace(/^\/3\/device\//, "")
        try {
          const { claims, header } = verifyJwt(
            String(headers["authorization"] ?? "").replace(/^bearer /, ""),
            apnsPublic,
            "ES256"
          )
          if (header["kid"] !== "KEY1234567" || claims["iss"] !== "TEAM123456") throw new Error("kid or iss")
          if (headers["apns-topic"] !== APNS_TOPIC) throw new Error(`apns-topic ${String(headers["apns-topic"])}`)
          if (headers["apns-push-type"] !== "alert") throw new Error("apns-push-type")
          received.push({ channel: "apns", target: token, payload: JSON.parse(body.toString()) })
          const status = statusFor(token, 410)
          stream.respond({ ":status": status ?? 200 })
          stream.end(status === 410 ? JSON.stringify({ reason: "Unregistered" }) : undefined)
        } catch (e) {
          rejected.push(`apns: ${String(e)}`)
          stream.respond({ ":status": 403 })
          stream.end()
        }
      })
    })

    const webPort = await listen(web)
    const fcmPort = await listen(fcm)
    const apnsPort = await listen(apns)

    const saFile = join(dir, "service-account.json")
    writeFileSync(
      saFile,
      JSON.stringify({
        type: "service_account",
        project_id: "timebank-test",
        client_email: "push@timebank-test.iam.gserviceaccount.com",
        private_key: saKey.export({ type: "pkcs8", format: "pem" }),
        token_uri: "https://oauth2.googleapis.com/token"
      })
    )
    const p8File = join(dir, "AuthKey.p8")
    writeFileSync(p8File, apnsKey.export({ type: "pkcs8", format: "pem" }))

    const webDevice = (name: string): WebDevice => {
      const ua = createECDH("prime256v1")
      ua.generateKeys()
      const auth = randomBytes(16)
      devices.set(`/push/${name}`, { ua, auth })
      return {
        endpoint: `https://127.0.0.1:${webPort}/push/${name}`,
        keys: { p256dh: b64url(ua.getPublicKey()), auth: b64url(auth) }
      }
    }

    const fakes: PushFakesShape = {
      received,
      rejected,
      webDevice,
      vapidPublicKey: vapid.publicKey,
      config: {
        VAPID_PUBLIC_KEY: vapid.publicKey,
        VAPID_PRIVATE_KEY: vapid.privateKey,
        VAPID_SUBJECT: "mailto:push-test@example.org",
        FCM_SERVICE_ACCOUNT: saFile,
        FCM_TOKEN_URL: `https://127.0.0.1:${fcmPort}/token`,
        FCM_ENDPOINT: `https://127.0.0.1:${fcmPort}`,
        APNS_KEY_FILE: p8File,
        APNS_KEY_ID: "KEY1234567",
        APNS_TEAM_ID: "TEAM123456",
        APNS_TOPIC,
        APNS_ENDPOINT: `https://127.0.0.1:${apnsPort}`,
        PUSH_CA_FILE: certFile,
        PUSH_TIMEOUT: "5 seconds"
      }
    }
    return { fakes, close: () => [web, fcm, apns].forEach((s) => s.close()), dir }
  }),
  ({ close, dir }) =>
    Effect.sync(() => {
      close()
      rmSync(dir, { recursive: true, force: true })
    })
).pipe(Effect.map(({ fakes }) => fakes))

/** The fakes, and an app (built by `app` from their configuration) talking to them. */
export const withPushFakes = <A, E, R>(app: (config: Record<string, string>) => Layer.Layer<A, E, R>) =>
  Layer.unwrapScoped(
    Effect.map(startPushFakes, (fakes) => Layer.merge(Layer.succeed(PushFakes, fakes), app(fakes.config)))
  )
