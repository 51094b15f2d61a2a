export * from "./Message.js"
export * from "./MessagesApi.js"
