export * from "./Poll.js"
export * from "./PollsApi.js"
