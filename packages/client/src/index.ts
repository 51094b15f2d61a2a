export * from "./fetchClient.js"
export * from "./headers.js"
export * from "./TimebankClient.js"
