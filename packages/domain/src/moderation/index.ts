export * from "./Report.js"
export * from "./ReportsApi.js"
