export * from "./FunderReports.js"
export * from "./FunderReportsApi.js"
export * from "./SocialValue.js"
