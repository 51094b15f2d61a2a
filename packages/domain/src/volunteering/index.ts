export * from "./Organisation.js"
