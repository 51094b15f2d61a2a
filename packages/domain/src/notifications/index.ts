export * from "./MailApi.js"
export * from "./Notification.js"
export * from "./NotificationsApi.js"
export * from "./PushApi.js"
