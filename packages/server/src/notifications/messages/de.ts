import type { MessageKey } from "./en.js"

/**
 * German. Members are addressed with the informal „du“, as usual in community apps; a credit is a „Zeitgutschrift“.
 * Quotes are „…“. Same keys and ICU parameters as `en.ts`.
 */
export const de: Readonly<Record<MessageKey, string>> = {
  "transaction_received.title":
    "{actor} hat dir {amount, plural, one {# Zeitgutschrift} other {# Zeitgutschriften}} geschickt",
  "transaction_received.body": "{description}",
  "transaction_sent.title":
    "Du hast {amount, plural, one {# Zeitgutschrift} other {# Zeitgutschriften}} an {recipient} geschickt",
  "transaction_sent.body": "{description}",
  "review_request.title": "Wie lief dein Tausch mit {other}?",
  "review_request.body":
    "Bewerte deinen Tausch über {amount, plural, one {# Zeitgutschrift} other {# Zeitgutschriften}}.",
  "member_registered.title": "Neues Mitglied: {actor}",
  "member_registered.body": "{actor} ist {community} beigetreten.",
  "welcome.title": "Willkommen bei {community}!",
  "welcome.body": "Dein Konto ist bereit. Biete an, was du kannst, und frag nach dem, was du brauchst.",
  "listing_created.title": "Neue Anzeige: {title}",
  "listing_created.body": "{actor} hat „{title}“ veröffentlicht.",
  "event_created.title": "Neue Veranstaltung: {title}",
  "event_created.body": "{actor} hat die Veranstaltung „{title}“ erstellt. Sie beginnt am {when}.",
  "event_updated.title": "Veranstaltung geändert: {title}",
  "event_updated.body": "{actor} hat die Veranstaltung „{title}“ geändert. Sie beginnt jetzt am {when}.",
  "event_cancelled.title": "Veranstaltung abgesagt: {title}",
  "event_cancelled.body": "„{title}“ am {when} wurde abgesagt.{reason, select, none {} other { Grund: {reason}}}",
  "event_rsvp.title": "{actor} {status, select, going {nimmt an {title} teil} other {interessiert sich für {title}}}",
  "event_rsvp.body": "Wer dabei ist, siehst du auf der Seite der Veranstaltung.",
  "event_rsvp_confirmed.title":
    "{status, select, going {Du nimmst an {title} teil} interested {Du interessierst dich für {title}} invited {Du bist zu {title} eingeladen} waitlisted {Du stehst auf der Warteliste für {title}} other {Deine Antwort zu {title}}}",
  "event_rsvp_confirmed.body": "Du kannst deine Antwort auf der Seite der Veranstaltung ändern.",
  "event_waitlist_promoted.title": "Ein Platz ist frei geworden: {title}",
  "event_waitlist_promoted.body": "Du bist von der Warteliste nachgerückt und nimmst jetzt teil.",
  "event_reminder.title": "Erinnerung: {title}",
  "event_reminder.body":
    "{minutes, plural, =60 {Beginnt in einer Stunde} =1440 {Beginnt morgen} =10080 {Beginnt in einer Woche} one {Beginnt in # Minute} other {Beginnt in # Minuten}}, am {when}.",
  "vol_opportunity_created.title": "Neues Ehrenamtsangebot: {title}",
  "vol_opportunity_created.body": "{organisation} sucht Ehrenamtliche.",
  "vol_application_approved.title": "Deine Bewerbung wurde angenommen: {title}",
  "vol_application_approved.body": "{organisation} hat deine Bewerbung angenommen.",
  "vol_application_declined.title": "Deine Bewerbung wurde abgelehnt: {title}",
  "vol_application_declined.body": "{organisation} hat deine Bewerbung abgelehnt.",
  "vol_hours_approved.title": "{hours, plural, one {# Stunde} other {# Stunden}} bestätigt",
  "vol_hours_approved.body": "{organisation} hat deine ehrenamtlichen Stunden bestätigt.",
  "review_received.title": "{actor} hat {target} bewertet",
  "review_received.body": "{rating, plural, one {# Stern} other {# Sterne}}",
  "new_message.title": "Neue Nachricht von {actor}",
  "new_message.body": "{snippet}",
  "connection_request.title": "{actor} möchte sich mit dir vernetzen",
  "connection_request.body": "Öffne das Profil, um die Anfrage anzunehmen oder abzulehnen.",
  "connection_accepted.title": "{actor} hat deine Anfrage angenommen",
  "connection_accepted.body": "Ihr seid jetzt vernetzt.",
  "group_created.title": "Neue Gruppe: {title}",
  "group_created.body": "{actor} hat die Gruppe „{title}“ gegründet.",
  "group_member_joined.title": "{actor} ist {title} beigetreten",
  "group_member_joined.body": "Deine Gruppe hat ein neues Mitglied.",
  "group_message.title": "{actor} hat in {title} geschrieben",
  "group_message.body": "{snippet}",
  "group_approved.title": "Deine Gruppe {title} wurde freigegeben",
  "group_approved.body": "„{title}“ ist jetzt für die Gemeinschaft geöffnet.",
  "group_rejected.title": "Deine Gruppe {title} wurde nicht freigegeben",
  "group_rejected.body": "„{title}“ wurde nicht freigegeben.{reason, select, none {} other { Grund: {reason}}}",
  "safeguarding_flag.title": "Neue Schutzmeldung",
  "safeguarding_flag.body": "{reason}",
  "match_suggested.title": "Neue Vorschläge warten auf Freigabe",
  "match_suggested.body": "Vorschläge für {other} warten in den Matching-Freigaben.",
  "match_approved.title": "Ein Vorschlag für dich: {title}",
  "match_approved.body": "Er passt zu deinen Fähigkeiten und Interessen. Schau ihn dir an!",
  "badge_awarded.title": "Du hast ein Abzeichen erhalten: {title}",
  "badge_awarded.body": "Herzlichen Glückwunsch!"
}
