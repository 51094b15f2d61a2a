export * from "./FederatedMessageRepo.js"
export * from "./FederatedWrites.js"
export * from "./FederatedWritesHttp.js"
