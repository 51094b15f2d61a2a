import type { MessageKey } from "./en.js"

/**
 * Spanish. Members are addressed with « tú », in wording that reads naturally in Spain and Latin America; quotes are
 * « … » (as the RAE recommends). Same keys and ICU parameters as `en.ts`.
 */
export const es: Readonly<Record<MessageKey, string>> = {
  "transaction_received.title": "{actor} te ha enviado {amount, plural, one {# crédito} other {# créditos}}",
  "transaction_received.body": "{description}",
  "transaction_sent.title": "Has enviado {amount, plural, one {# crédito} other {# créditos}} a {recipient}",
  "transaction_sent.body": "{description}",
  "review_request.title": "¿Qué tal fue tu intercambio con {other}?",
  "review_request.body": "Deja una reseña de tu intercambio de {amount, plural, one {# crédito} other {# créditos}}.",
  "member_registered.title": "Nuevo miembro: {actor}",
  "member_registered.body": "{actor} se ha unido a {community}.",
  "welcome.title": "¡Te damos la bienvenida a {community}!",
  "welcome.body": "Tu cuenta está lista. Ofrece lo que sabes hacer y pide lo que necesitas.",
  "listing_created.title": "Nuevo anuncio: {title}",
  "listing_created.body": "{actor} ha publicado «{title}».",
  "event_created.title": "Nuevo evento: {title}",
  "event_created.body": "{actor} ha creado el evento «{title}», que empieza el {when}.",
  "event_updated.title": "Evento modificado: {title}",
  "event_updated.body": "{actor} ha modificado el evento «{title}». Ahora empieza el {when}.",
  "event_cancelled.title": "Evento cancelado: {title}",
  "event_cancelled.body":
    "Se ha cancelado el evento «{title}» del {when}.{reason, select, none {} other { Motivo: {reason}}}",
  "event_rsvp.title": "{actor} {status, select, going {asistirá a {title}} other {tiene interés en {title}}}",
  "event_rsvp.body": "Consulta quién asistirá en la página del evento.",
  "event_rsvp_confirmed.title":
    "{status, select, going {Asistirás a {title}} interested {Te interesa {title}} invited {Tienes una invitación para {title}} waitlisted {Estás en la lista de espera de {title}} other {Tu respuesta a {title}}}",
  "event_rsvp_confirmed.body": "Puedes cambiar tu respuesta en la página del evento.",
  "event_waitlist_promoted.title": "Se ha liberado una plaza: {title}",
  "event_waitlist_promoted.body": "Has pasado de la lista de espera a la de asistentes.",
  "event_reminder.title": "Recordatorio: {title}",
  "event_reminder.body":
    "{minutes, plural, =60 {Empieza en una hora} =1440 {Empieza mañana} =10080 {Empieza en una semana} one {Empieza en # minuto} other {Empieza en # minutos}}, el {when}.",
  "vol_opportunity_created.title": "Nueva oportunidad de voluntariado: {title}",
  "vol_opportunity_created.body": "{organisation} busca voluntarios.",
  "vol_application_approved.title": "Han aceptado tu solicitud: {title}",
  "vol_application_approved.body": "{organisation} ha aceptado tu solicitud.",
  "vol_application_declined.title": "Han rechazado tu solicitud: {title}",
  "vol_application_declined.body": "{organisation} ha rechazado tu solicitud.",
  "vol_hours_approved.title": "{hours, plural, one {# hora aprobada} other {# horas aprobadas}}",
  "vol_hours_approved.body": "{organisation} ha aprobado tus horas de voluntariado.",
  "review_received.title": "{actor} ha dejado una reseña sobre {target}",
  "review_received.body": "{rating, plural, one {# estrella} other {# estrellas}}",
  "new_message.title": "Nuevo mensaje de {actor}",
  "new_message.body": "{snippet}",
  "connection_request.title": "{actor} quiere conectar contigo",
  "connection_request.body": "Acepta o rechaza la solicitud desde su perfil.",
  "connection_accepted.title": "{actor} ha aceptado tu solicitud",
  "connection_accepted.body": "Ya tienes una nueva conexión.",
  "group_created.title": "Nuevo grupo: {title}",
  "group_created.body": "{actor} ha creado el grupo «{title}».",
  "group_member_joined.title": "{actor} se ha unido a {title}",
  "group_member_joined.body": "Tu grupo tiene un nuevo miembro.",
  "group_message.title": "{actor} ha escrito en {title}",
  "group_message.body": "{snippet}",
  "safeguarding_flag.title": "Nueva alerta de protección",
  "safeguarding_flag.body": "{reason}",
  "badge_awarded.title": "Has conseguido una insignia: {title}",
  "badge_awarded.body": "¡Felicidades!"
}
