export * from "./Connection.js"
export * from "./ConnectionErrors.js"
export * from "./ConnectionsApi.js"
