export * from "./Opportunity.js"
export * from "./Organisation.js"
