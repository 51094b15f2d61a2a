export * from "./SystemHttp.js"
