export * from "./BlogApi.js"
export * from "./BlogPost.js"
export * from "./Faq.js"
export * from "./HelpApi.js"
