// Baseline: the least a Node server can do for the health route, so our numbers have something to be compared with.
import { createServer } from "node:http"

const body = JSON.stringify({ status: "ok" })

createServer((req, res) => {
  if (req.method === "GET" && req.url === "/api/v2/health") {
    res.writeHead(200, { "content-type": "application/json", "content-length": Buffer.byteLength(body) })
    res.end(body)
  } else {
    res.writeHead(404).end()
  }
}).listen(Number(process.env.PORT), "127.0.0.1")

process.on("SIGTERM", () => process.exit(0))
