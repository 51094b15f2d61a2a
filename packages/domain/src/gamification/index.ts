export * from "./AdminGamificationApi.js"
export * from "./Gamification.js"
export * from "./GamificationApi.js"
