import type { MessageKey } from "./en.js"

/**
 * French. Members are addressed with « vous »; quotes are « … ». `\u00a0` is the no-break space French typography
 * puts inside « » and before « : », « ? » and « ! ». Apostrophes are typographic (’): an ASCII `'` before `{` would
 * start an ICU quoted section. French plural `one` covers 0 and 1. Same keys and ICU parameters as `en.ts`.
 */
export const fr: Readonly<Record<MessageKey, string>> = {
  "transaction_received.title": "{actor} vous a envoyé {amount, plural, one {# crédit} other {# crédits}}",
  "transaction_received.body": "{description}",
  "transaction_sent.title": "Vous avez envoyé {amount, plural, one {# crédit} other {# crédits}} à {recipient}",
  "transaction_sent.body": "{description}",
  "review_request.title": "Comment s’est passé votre échange avec {other}\u00a0?",
  "review_request.body": "Laissez un avis sur votre échange de {amount, plural, one {# crédit} other {# crédits}}.",
  "member_registered.title": "Nouveau membre\u00a0: {actor}",
  "member_registered.body": "{actor} a rejoint {community}.",
  "welcome.title": "Bienvenue sur {community}\u00a0!",
  "welcome.body": "Votre compte est prêt. Proposez ce que vous savez faire et demandez ce dont vous avez besoin.",
  "listing_created.title": "Nouvelle annonce\u00a0: {title}",
  "listing_created.body": "{actor} a publié «\u00a0{title}\u00a0».",
  "event_created.title": "Nouvel événement\u00a0: {title}",
  "event_created.body": "{actor} a créé l’événement «\u00a0{title}\u00a0», qui commence le {when}.",
  "event_updated.title": "Événement modifié\u00a0: {title}",
  "event_updated.body": "{actor} a modifié l’événement «\u00a0{title}\u00a0». Il commence désormais le {when}.",
  "event_cancelled.title": "Événement annulé\u00a0: {title}",
  "event_cancelled.body":
    "L’événement «\u00a0{title}\u00a0» du {when} a été annulé.{reason, select, none {} other { Motif\u00a0: {reason}}}",
  "event_rsvp.title": "{actor} {status, select, going {participe à {title}} other {s’intéresse à {title}}}",
  "event_rsvp.body": "Découvrez qui participe sur la page de l’événement.",
  "event_rsvp_confirmed.title":
    "{status, select, going {Vous participez à {title}} interested {Vous vous intéressez à {title}} invited {Vous avez reçu une invitation pour {title}} waitlisted {Vous êtes sur la liste d’attente de {title}} other {Votre réponse pour {title}}}",
  "event_rsvp_confirmed.body": "Vous pouvez modifier votre réponse sur la page de l’événement.",
  "event_waitlist_promoted.title": "Une place s’est libérée\u00a0: {title}",
  "event_waitlist_promoted.body":
    "Vous ne figurez plus sur la liste d’attente\u00a0: votre participation est confirmée.",
  "event_reminder.title": "Rappel\u00a0: {title}",
  "event_reminder.body":
    "{minutes, plural, =60 {Commence dans une heure} =1440 {Commence demain} =10080 {Commence dans une semaine} one {Commence dans # minute} other {Commence dans # minutes}}, le {when}.",
  "vol_opportunity_created.title": "Nouvelle mission de bénévolat\u00a0: {title}",
  "vol_opportunity_created.body": "{organisation} recherche des bénévoles.",
  "vol_application_approved.title": "Votre candidature a été acceptée\u00a0: {title}",
  "vol_application_approved.body": "{organisation} a accepté votre candidature.",
  "vol_application_declined.title": "Votre candidature a été refusée\u00a0: {title}",
  "vol_application_declined.body": "{organisation} a refusé votre candidature.",
  "vol_hours_approved.title": "{hours, plural, one {# heure validée} other {# heures validées}}",
  "vol_hours_approved.body": "{organisation} a validé vos heures de bénévolat.",
  "review_received.title": "{actor} a évalué {target}",
  "review_received.body": "{rating, plural, one {# étoile} other {# étoiles}}",
  // Not "Nouveau message de {actor}": "de" would need elision before a vowel ("d’Anne"), which ICU cannot choose.
  "new_message.title": "{actor} vous a envoyé un message",
  "new_message.body": "{snippet}",
  "connection_request.title": "{actor} souhaite entrer en contact avec vous",
  "connection_request.body": "Acceptez ou refusez la demande depuis son profil.",
  "connection_accepted.title": "{actor} a accepté votre demande",
  "connection_accepted.body": "Vous êtes maintenant en contact.",
  "group_created.title": "Nouveau groupe\u00a0: {title}",
  "group_created.body": "{actor} a créé le groupe «\u00a0{title}\u00a0».",
  "group_member_joined.title": "{actor} a rejoint {title}",
  "group_member_joined.body": "Votre groupe compte un nouveau membre.",
  "group_message.title": "{actor} a écrit dans {title}",
  "group_message.body": "{snippet}",
  "group_approved.title": "Votre groupe {title} a été approuvé",
  "group_approved.body": "«\u00a0{title}\u00a0» est désormais ouvert à la communauté.",
  "group_rejected.title": "Votre groupe {title} n’a pas été approuvé",
  "group_rejected.body":
    "«\u00a0{title}\u00a0» n’a pas été approuvé.{reason, select, none {} other { Motif\u00a0: {reason}}}",
  "safeguarding_flag.title": "Nouveau signalement de protection",
  "safeguarding_flag.body": "{reason}",
  "match_suggested.title": "De nouvelles suggestions attendent une validation",
  "match_suggested.body": "Des suggestions pour {other} attendent dans les validations de correspondances.",
  "match_approved.title": "Une suggestion pour vous\u00a0: {title}",
  "match_approved.body": "Elle correspond à vos compétences et intérêts. Jetez-y un œil\u00a0!",
  "badge_awarded.title": "Vous avez obtenu un badge\u00a0: {title}",
  "badge_awarded.body": "Félicitations\u00a0!"
}
