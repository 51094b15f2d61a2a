/**
 * English: the reference catalogue. Every other language has exactly these keys (checked by the compiler). Texts are
 * ICU MessageFormat: `{name}` puts a value in, `{n, plural, one {…} other {…}}` picks the plural form.
 *
 * Parameters: `actor` (who acted), `community` (the tenant's name), `amount` (credits), `description`, `title`
 * (event, listing, opportunity), `organisation`, `when` (a start time, shown in the community's time zone), `reason`, `minutes`, `rating`, `status`.
 */
export const en = {
  "transaction_received.title": "{actor} sent you {amount, plural, one {# credit} other {# credits}}",
  "transaction_received.body": "{description}",
  "transaction_sent.title": "You sent {amount, plural, one {# credit} other {# credits}} to {recipient}",
  "transaction_sent.body": "{description}",
  "review_request.title": "How did your exchange with {other} go?",
  "review_request.body": "Leave a review of your exchange of {amount, plural, one {# credit} other {# credits}}.",
  "member_registered.title": "New member: {actor}",
  "member_registered.body": "{actor} joined {community}.",
  "welcome.title": "Welcome to {community}!",
  "welcome.body": "Your account is ready. Offer what you can do and ask for what you need.",
  "listing_created.title": "New listing: {title}",
  "listing_created.body": "{actor} posted “{title}”.",
  "event_created.title": "New event: {title}",
  "event_created.body": "{actor} created “{title}” on {when}.",
  "event_updated.title": "Event changed: {title}",
  "event_updated.body": "{actor} changed the event “{title}”. It now starts on {when}.",
  "event_cancelled.title": "Event cancelled: {title}",
  "event_cancelled.body": "“{title}” on {when} was cancelled.{reason, select, none {} other { Reason: {reason}}}",
  "event_rsvp.title": "{actor} {status, select, going {is going to} other {is interested in}} {title}",
  "event_rsvp.body": "See who is coming on the event page.",
  "event_rsvp_confirmed.title":
    "{status, select, going {You are going to} interested {You are interested in} invited {You are invited to} waitlisted {You are on the waiting list of} other {Your answer to}} {title}",
  "event_rsvp_confirmed.body": "You can change your answer on the event page.",
  "event_waitlist_promoted.title": "A place opened up: {title}",
  "event_waitlist_promoted.body": "You moved from the waiting list to going.",
  "event_reminder.title": "Reminder: {title}",
  "event_reminder.body":
    "{minutes, plural, =60 {Starts in one hour} =1440 {Starts tomorrow} =10080 {Starts in one week} other {Starts in # minutes}}, on {when}.",
  "vol_opportunity_created.title": "New volunteering opportunity: {title}",
  "vol_opportunity_created.body": "{organisation} is looking for volunteers.",
  "vol_application_approved.title": "Your application was approved: {title}",
  "vol_application_approved.body": "{organisation} approved your application.",
  "vol_application_declined.title": "Your application was declined: {title}",
  "vol_application_declined.body": "{organisation} declined your application.",
  "vol_hours_approved.title": "{hours, plural, one {# hour} other {# hours}} approved",
  "vol_hours_approved.body": "{organisation} approved your volunteering hours.",
  "review_received.title": "{actor} reviewed {target}",
  "review_received.body": "{rating, plural, one {# star} other {# stars}}",
  "new_message.title": "New message from {actor}",
  "new_message.body": "{snippet}",
  "connection_request.title": "{actor} wants to connect",
  "connection_request.body": "Accept or decline the request on their profile.",
  "connection_accepted.title": "{actor} accepted your request",
  "connection_accepted.body": "You are now connected.",
  "group_created.title": "New group: {title}",
  "group_created.body": "{actor} created the group “{title}”.",
  "group_member_joined.title": "{actor} joined {title}",
  "group_member_joined.body": "Your group has a new member.",
  "group_message.title": "{actor} wrote in {title}",
  "group_message.body": "{snippet}",
  "group_approved.title": "Your group {title} was approved",
  "group_approved.body": "“{title}” is now open to the community.",
  "group_rejected.title": "Your group {title} was not approved",
  "group_rejected.body": "“{title}” was not approved.{reason, select, none {} other { Reason: {reason}}}",
  "safeguarding_flag.title": "Safeguarding flag raised",
  "safeguarding_flag.body": "{reason}",
  "match_suggested.title": "New match suggestions await approval",
  "match_suggested.body": "Suggestions for {other} are waiting in the matching approvals.",
  "match_approved.title": "A match for you: {title}",
  "match_approved.body": "It fits your skills and interests. Have a look!",
  "badge_awarded.title": "You earned a badge: {title}",
  "badge_awarded.body": "Congratulations!"
} as const

export type MessageKey = keyof typeof en
