export * from "./FederationAccess.js"
export * from "./FederationErrors.js"
export * from "./FederationScopes.js"
