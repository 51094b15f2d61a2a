import { Layer } from "effect"
import { GroupChatService } from "./GroupChatService.js"
import { GroupMembersService } from "./GroupMembersService.js"
import { GroupChatHttpLive, GroupMembersHttpLive, GroupsHttpLive } from "./GroupsHttp.js"
import { GroupsService } from "./GroupsService.js"
import { GroupTypesService } from "./GroupTypesService.js"

export * from "./GroupChatService.js"
export * from "./GroupDirectory.js"
export * from "./GroupMembersService.js"
export * from "./GroupsService.js"
export * from "./GroupStats.js"
export * from "./GroupTypesService.js"

/** Groups: the groups, their memberships, chatrooms and types (decisions D14, D14a). */
export const GroupsLive = Layer.mergeAll(
  GroupsHttpLive.pipe(Layer.provide(Layer.mergeAll(GroupsService.Default, GroupTypesService.Default))),
  GroupMembersHttpLive.pipe(Layer.provide(GroupMembersService.Default)),
  GroupChatHttpLive.pipe(Layer.provide(GroupChatService.Default))
)
