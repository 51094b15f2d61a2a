export * from "./AdminMatchingApi.js"
export * from "./Match.js"
export * from "./MatchingApi.js"
