/**
 * The texts of e-mails and of the unsubscribe page, in every shipped language (ICU MessageFormat, like en.ts).
 * Parameters: `name` (the recipient's first name), `community` (the tenant's name), `count` (items in a digest),
 * `kind` (an unsubscribe kind), `admin` (who sent a test mail), `transport` (`smtp` or `file`), `hours`.
 */
const mailEn = {
  "mail.greeting": "{name, select, none {Hello,} other {Hello {name},}}",
  "mail.footer": "You receive this e-mail as a member of {community}.",
  "mail.unsubscribe": "Unsubscribe from these e-mails",
  "mail.open": "Open in {community}",
  "mail.digest.daily.subject":
    "{count, plural, one {# new notification} other {# new notifications}} from {community} today",
  "mail.digest.monthly.subject":
    "{count, plural, one {# new notification} other {# new notifications}} from {community} this month",
  "mail.digest.intro":
    "{count, plural, one {Here is what happened in {community}:} other {Here are the # things that happened in {community}:}}",
  "mail.test.subject": "Test e-mail from {community}",
  "mail.test.body":
    "{admin} sent this test e-mail through the {transport, select, smtp {SMTP server} other {mail folder}} of {community}. If you can read it, e-mail works.",
  "mail.password_reset.subject": "Reset your password for {community}",
  "mail.password_reset.body":
    "Someone asked to reset the password of your account. The link works for {hours, plural, one {# hour} other {# hours}}. If it was not you, ignore this e-mail.",
  "mail.password_reset.action": "Choose a new password",
  "mail.welcome.subject": "Welcome to {community}!",
  "mail.welcome.body": "Your account in {community} is ready. Offer what you can do and ask for what you need.",
  "mail.welcome.set_password":
    "Choose a password to sign in. The link works for {hours, plural, one {# hour} other {# hours}}.",
  "mail.welcome.action": "Choose your password",
  "unsubscribe.title": "Unsubscribe",
  "unsubscribe.question":
    "Stop {kind, select, all {every e-mail from {community}} email_transactions {e-mails about transactions from {community}} email_messages {e-mails about messages from {community}} email_reviews {e-mails about reviews from {community}} other {the daily and monthly digests from {community}}}?",
  "unsubscribe.button": "Unsubscribe",
  "unsubscribe.note": "You can turn e-mails back on at any time in your notification settings."
} as const

export type MailKey = keyof typeof mailEn

type Catalogue = Readonly<Record<MailKey, string>>

const mailDe: Catalogue = {
  "mail.greeting": "{name, select, none {Hallo,} other {Hallo {name},}}",
  "mail.footer": "Du erhältst diese E-Mail als Mitglied von {community}.",
  "mail.unsubscribe": "Diese E-Mails abbestellen",
  "mail.open": "In {community} öffnen",
  "mail.digest.daily.subject":
    "{count, plural, one {# neue Benachrichtigung} other {# neue Benachrichtigungen}} von {community} heute",
  "mail.digest.monthly.subject":
    "{count, plural, one {# neue Benachrichtigung} other {# neue Benachrichtigungen}} von {community} in diesem Monat",
  "mail.digest.intro":
    "{count, plural, one {Das ist in {community} passiert:} other {Diese # Dinge sind in {community} passiert:}}",
  "mail.test.subject": "Test-E-Mail von {community}",
  "mail.test.body":
    "{admin} hat diese Test-E-Mail über {transport, select, smtp {den SMTP-Server} other {den Mail-Ordner}} von {community} gesendet. Wenn du sie lesen kannst, funktioniert der E-Mail-Versand.",
  "mail.password_reset.subject": "Setze dein Passwort für {community} zurück",
  "mail.password_reset.body":
    "Jemand hat angefragt, das Passwort deines Kontos zurückzusetzen. Der Link gilt {hours, plural, one {# Stunde} other {# Stunden}}. Wenn du das nicht warst, ignoriere diese E-Mail.",
  "mail.password_reset.action": "Neues Passwort wählen",
  "mail.welcome.subject": "Willkommen bei {community}!",
  "mail.welcome.body":
    "Dein Konto bei {community} ist bereit. Biete an, was du kannst, und frage nach dem, was du brauchst.",
  "mail.welcome.set_password":
    "Wähle ein Passwort, um dich anzumelden. Der Link gilt {hours, plural, one {# Stunde} other {# Stunden}}.",
  "mail.welcome.action": "Passwort wählen",
  "unsubscribe.title": "Abbestellen",
  "unsubscribe.question":
    "{kind, select, all {Alle E-Mails von {community}} email_transactions {E-Mails über Transaktionen von {community}} email_messages {E-Mails über Nachrichten von {community}} email_reviews {E-Mails über Bewertungen von {community}} other {Die tägliche und monatliche Zusammenfassung von {community}}} abbestellen?",
  "unsubscribe.button": "Abbestellen",
  "unsubscribe.note": "Du kannst E-Mails jederzeit in deinen Benachrichtigungseinstellungen wieder einschalten."
}

const mailFr: Catalogue = {
  "mail.greeting": "{name, select, none {Bonjour,} other {Bonjour {name},}}",
  "mail.footer": "Vous recevez cet e-mail en tant que membre de {community}.",
  "mail.unsubscribe": "Se désabonner de ces e-mails",
  "mail.open": "Ouvrir dans {community}",
  "mail.digest.daily.subject":
    "{count, plural, one {# nouvelle notification} other {# nouvelles notifications}} de {community} aujourd’hui",
  "mail.digest.monthly.subject":
    "{count, plural, one {# nouvelle notification} other {# nouvelles notifications}} de {community} ce mois-ci",
  "mail.digest.intro":
    "{count, plural, one {Voici ce qui s’est passé dans {community} :} other {Voici les # choses qui se sont passées dans {community} :}}",
  "mail.test.subject": "E-mail de test de {community}",
  "mail.test.body":
    "{admin} a envoyé cet e-mail de test par {transport, select, smtp {le serveur SMTP} other {le dossier de courrier}} de {community}. Si vous pouvez le lire, l’envoi d’e-mails fonctionne.",
  "mail.password_reset.subject": "Réinitialisez votre mot de passe pour {community}",
  "mail.password_reset.body":
    "Quelqu’un a demandé la réinitialisation du mot de passe de votre compte. Le lien est valable {hours, plural, one {# heure} other {# heures}}. Si ce n’était pas vous, ignorez cet e-mail.",
  "mail.password_reset.action": "Choisir un nouveau mot de passe",
  "mail.welcome.subject": "Bienvenue dans {community} !",
  "mail.welcome.body":
    "Votre compte dans {community} est prêt. Proposez ce que vous savez faire et demandez ce dont vous avez besoin.",
  "mail.welcome.set_password":
    "Choisissez un mot de passe pour vous connecter. Le lien est valable {hours, plural, one {# heure} other {# heures}}.",
  "mail.welcome.action": "Choisir votre mot de passe",
  "unsubscribe.title": "Désabonnement",
  "unsubscribe.question":
    "Ne plus recevoir {kind, select, all {aucun e-mail de {community}} email_transactions {les e-mails sur les transactions de {community}} email_messages {les e-mails sur les messages de {community}} email_reviews {les e-mails sur les avis de {community}} other {les résumés quotidiens et mensuels de {community}}} ?",
  "unsubscribe.button": "Se désabonner",
  "unsubscribe.note": "Vous pouvez réactiver les e-mails à tout moment dans vos paramètres de notification."
}

const mailEs: Catalogue = {
  "mail.greeting": "{name, select, none {Hola:} other {Hola, {name}:}}",
  "mail.footer": "Recibes este correo como miembro de {community}.",
  "mail.unsubscribe": "Darse de baja de estos correos",
  "mail.open": "Abrir en {community}",
  "mail.digest.daily.subject":
    "{count, plural, one {# notificación nueva} other {# notificaciones nuevas}} de {community} hoy",
  "mail.digest.monthly.subject":
    "{count, plural, one {# notificación nueva} other {# notificaciones nuevas}} de {community} este mes",
  "mail.digest.intro":
    "{count, plural, one {Esto es lo que pasó en {community}:} other {Estas son las # cosas que pasaron en {community}:}}",
  "mail.test.subject": "Correo de prueba de {community}",
  "mail.test.body":
    "{admin} envió este correo de prueba a través {transport, select, smtp {del servidor SMTP} other {de la carpeta de correo}} de {community}. Si puedes leerlo, el correo funciona.",
  "mail.password_reset.subject": "Restablece tu contraseña de {community}",
  "mail.password_reset.body":
    "Alguien pidió restablecer la contraseña de tu cuenta. El enlace funciona durante {hours, plural, one {# hora} other {# horas}}. Si no fuiste tú, ignora este correo.",
  "mail.password_reset.action": "Elegir una contraseña nueva",
  "mail.welcome.subject": "¡Bienvenido a {community}!",
  "mail.welcome.body": "Tu cuenta en {community} está lista. Ofrece lo que sabes hacer y pide lo que necesitas.",
  "mail.welcome.set_password":
    "Elige una contraseña para iniciar sesión. El enlace funciona durante {hours, plural, one {# hora} other {# horas}}.",
  "mail.welcome.action": "Elegir tu contraseña",
  "unsubscribe.title": "Darse de baja",
  "unsubscribe.question":
    "¿Dejar de recibir {kind, select, all {todos los correos de {community}} email_transactions {los correos sobre transacciones de {community}} email_messages {los correos sobre mensajes de {community}} email_reviews {los correos sobre valoraciones de {community}} other {los resúmenes diarios y mensuales de {community}}}?",
  "unsubscribe.button": "Darse de baja",
  "unsubscribe.note": "Puedes volver a activar los correos en cualquier momento en tus ajustes de notificaciones."
}

/** The mail catalogues by language; Messages.ts merges them into its own. */
export const mail = { en: mailEn as Catalogue, de: mailDe, fr: mailFr, es: mailEs } as const
