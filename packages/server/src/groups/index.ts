import { Layer } from "effect"
import { GroupsAdminHttpLive } from "./admin/GroupsAdminHttp.js"
import { GroupsAdminService } from "./admin/GroupsAdminService.js"
import { GroupGeocodingHttpLive } from "./geocoding/GroupGeocodingHttp.js"
import { GroupGeocodingService } from "./geocoding/GroupGeocodingService.js"
import { GroupChatService } from "./GroupChatService.js"
import { GroupMembersService } from "./GroupMembersService.js"
import { GroupChatHttpLive, GroupMembersHttpLive, GroupsHttpLive } from "./GroupsHttp.js"
import { GroupsService } from "./GroupsService.js"
import { GroupTypesService } from "./GroupTypesService.js"
import { GroupTypesAdminHttpLive } from "./types/GroupTypesAdminHttp.js"

export * from "./admin/GroupFeedActivity.js"
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
  GroupChatHttpLive.pipe(Layer.provide(GroupChatService.Default)),
  // Geocoding of locations (decisions D17); the Geocoder comes from ServicesLive.
  GroupGeocodingHttpLive.pipe(Layer.provide(GroupGeocodingService.Default)),
  GroupTypesAdminHttpLive
)

/** Groups administration (decisions D17); needs the feed's `GroupFeedActivity` (provided by the composition root). */
export const GroupsAdminLive = GroupsAdminHttpLive.pipe(Layer.provide(GroupsAdminService.Default))
