"""What pbem knows about the mail providers a moderator's mailbox most often lives at, for ``pbem init``.

Why this exists: most first setups fail on details a person has to look up
somewhere else (which port goes with which security, that Gmail wants an app
password and Microsoft no password at all, that the reply addresses need
plus-addressing, which folder names are traps). A preset holds those details
once, as plain data: where the IMAP and SMTP servers are and how they are
secured, who logs in, how, whether ``moderator+token@host`` reaches the
mailbox, safe folder names, whether the server offers IDLE, and roughly how
much mail the account may send.

Sending limits are approximate and change without notice; every text that
shows them says so and sends the reader to the provider. This module does no
I/O: ``pbem.initfile`` turns a preset into a commented ``pbem.toml`` and
``pbem.cli.init`` asks the questions.
"""
from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum

from pbem.mail.settings import IMAP_DEFAULT_PORTS, SMTP_DEFAULT_PORTS, Security


class Auth(StrEnum):
    """How the moderator proves who it is to the provider's servers."""

    PASSWORD = "password"  # the mailbox's own password (a server of one's own)
    APP_PASSWORD = "app-password"  # a password the provider makes for one program, revocable on its own
    OAUTH2 = "xoauth2"  # a token from the provider's sign-in; no password is accepted


class Login(StrEnum):
    """Whose name goes into the login."""

    ADDRESS = "address"  # the full address, domain included
    ASK = "ask"  # the server's own rule: often the address, sometimes only the part before '@'


@dataclass(frozen=True)
class Endpoint:
    """One server: ``host`` is None when the person must name it (a server of one's own)."""

    host: str | None
    port: int
    security: Security


@dataclass(frozen=True)
class SendingLimit:
    """About how many mails a day one kind of account may send (``None``: nothing published that we rely on)."""

    account: str
    per_day: int | None


@dataclass(frozen=True)
class ProviderPreset:
    """Everything ``pbem init`` writes or says for one provider; the notes are sentences for the config's comments."""

    key: str
    name: str  # short, for sentences: "Gmail"
    title: str  # what the preset covers: "Gmail (Google accounts and Google Workspace)"
    imap: Endpoint
    smtp: Endpoint
    login: Login
    auth: Auth
    plus_addressing: bool | None  # does moderator+token@host reach the mailbox? None: depends on the server
    idle: bool | None  # None: depends on the server (pbem check tells)
    sending: tuple[SendingLimit, ...]  # published daily figures, per kind of account (may be empty)
    sending_note: str  # what else to know about sending, or what to do when no figure is given
    domains: tuple[str, ...]  # address domains that suggest this provider
    first_steps: tuple[str, ...]  # what to do at the provider first, in a line each (pbem init prints them)
    setup_notes: tuple[str, ...]  # the same at more length, with the why (the config's header)
    auth_notes: tuple[str, ...]
    address_notes: tuple[str, ...]
    folder_notes: tuple[str, ...]
    server_notes: tuple[str, ...] = ()
    plus_separator: str = "+"
    processed_folder: str = "processed"
    failed_folder: str = "failed"

    def username_for(self, address: str) -> str:
        """The login name this provider expects for ``address`` (the address itself for every preset)."""
        return address

    def lowest_daily_limit(self) -> int | None:
        """The smallest published daily figure: the one an account of unknown kind must assume."""
        known = [limit.per_day for limit in self.sending if limit.per_day is not None]
        return min(known) if known else None

    def suggested_limits(self) -> tuple[int, int] | None:
        """(mails per hour, mails per day) that stay below the provider's daily limit, or None when unknown.

        A fifth of the day's allowance is kept back for the person who also
        uses the mailbox and for counting differences (providers count
        recipients, not mails), and one hour may use at most a quarter of
        what is left, so that one busy hour cannot spend the whole day.
        """
        daily = self.lowest_daily_limit()
        if daily is None:
            return None
        per_day = max(10, daily * 4 // 5 // 10 * 10)
        return max(5, per_day // 4), per_day


GMAIL = ProviderPreset(
    key="gmail",
    name="Gmail",
    title="Gmail (Google accounts and Google Workspace)",
    imap=Endpoint("imap.gmail.com", 993, Security.SSL),
    smtp=Endpoint("smtp.gmail.com", 587, Security.STARTTLS),
    login=Login.ADDRESS,
    auth=Auth.APP_PASSWORD,
    plus_addressing=True,
    processed_folder="pbem-processed",
    failed_folder="pbem-failed",
    idle=True,
    sending=(SendingLimit("a personal Gmail account", 500), SendingLimit("a Google Workspace account", 2000)),
    sending_note="Going over the limit can stop the account from sending for up to a day.",
    domains=("gmail.com", "googlemail.com"),
    first_steps=("turn on 2-Step Verification, then create an app password for pbem "
                 "(Google Account, Security, App passwords)",),
    setup_notes=(
        "Google accepts no ordinary password from a mail program. Turn on 2-Step Verification for the "
        "account, then create an app password (Google Account, Security, App passwords); that 16-letter "
        "password is the one pbem uses. It stops working when the account's password is changed.",
        "Older accounts may still show an IMAP switch under Gmail's settings (Forwarding and POP/IMAP): "
        "it must be on.",
    ),
    auth_notes=(
        "The password is an app password, which exists only while 2-Step Verification is on. Accounts "
        "under Advanced Protection, and Workspace domains whose admin forbids app passwords, cannot use one.",
    ),
    address_notes=(
        "Gmail delivers moderator+anything@gmail.com to moderator@gmail.com, so the reply addresses work "
        "without setup. A Gmail filter that skips the inbox for such mail would hide it from pbem.",
    ),
    folder_notes=(
        "Over IMAP, Gmail's labels look like folders. pbem moves handled mail out of INBOX, which in Gmail "
        "takes the Inbox label off and puts the label named here on; the folders are made on first use.",
        "Never read from, or move to, \"[Gmail]/All Mail\": every message stays in All Mail whatever label "
        "it carries, so mail moved there never leaves, and an inbox set to All Mail would offer the "
        "handled mail again. Keep mailbox = \"INBOX\".",
        "Gmail's special folders are named in the account's language and some accounts show "
        "\"[Google Mail]\" instead of \"[Gmail]\"; pbem needs none of them. Mail that Gmail takes for spam "
        "goes to its Spam folder, where pbem does not look.",
    ),
    server_notes=("smtp.gmail.com also takes port 465 with security = \"ssl\".",),
)

FASTMAIL = ProviderPreset(
    key="fastmail",
    name="Fastmail",
    title="Fastmail",
    imap=Endpoint("imap.fastmail.com", 993, Security.SSL),
    smtp=Endpoint("smtp.fastmail.com", 465, Security.SSL),
    login=Login.ADDRESS,
    auth=Auth.APP_PASSWORD,
    plus_addressing=True,
    idle=True,
    sending=(),
    sending_note="Fastmail limits how much one account may send, with figures that depend on the plan: see "
                 "Fastmail's help pages.",
    domains=("fastmail.com", "fastmail.fm"),
    first_steps=("create an app password with access to mail (Settings, Privacy & Security)",),
    setup_notes=(
        "Fastmail lets mail programs in only with an app password: create one in Fastmail's settings "
        "(Privacy & Security, app passwords) with access to mail. The account's own password is refused.",
    ),
    auth_notes=("The password is a Fastmail app password, not the one used on the web.",),
    address_notes=(
        "Fastmail delivers moderator+anything@host to the mailbox. When the part after '+' matches the name "
        "of a folder, Fastmail files the mail there instead of the inbox; pbem's tokens are random letters "
        "and digits that match no ordinary folder, so players' replies stay in INBOX.",
    ),
    folder_notes=(
        "Fastmail separates folder levels with '/'. The folders below are made at the top level on first use.",
    ),
    server_notes=("smtp.fastmail.com also takes port 587 with security = \"starttls\".",),
)

OUTLOOK = ProviderPreset(
    key="outlook",
    name="Microsoft",
    title="Microsoft 365 and Outlook.com",
    imap=Endpoint("outlook.office365.com", 993, Security.SSL),
    smtp=Endpoint("smtp.office365.com", 587, Security.STARTTLS),
    login=Login.ADDRESS,
    auth=Auth.OAUTH2,
    plus_addressing=True,
    idle=True,
    sending=(SendingLimit("a free Outlook.com account", 300), SendingLimit("a Microsoft 365 mailbox", 10000)),
    sending_note="Microsoft 365 also holds a mailbox to about 30 mails a minute.",
    domains=("outlook.com", "hotmail.com", "live.com", "msn.com"),
    first_steps=("turn IMAP on in Outlook.com (Settings, Mail, Forwarding and IMAP), or for Microsoft 365 have "
                 "the admin allow IMAP and authenticated SMTP for the mailbox",
                 "password sign-in is being switched off: read the OAuth2 lines in the file's [imap] table"),
    setup_notes=(
        "Outlook.com: IMAP is off until you turn it on (Settings, Mail, Forwarding and IMAP).",
        "Microsoft 365: the organisation's admin must allow IMAP and authenticated SMTP for this mailbox.",
    ),
    auth_notes=(
        "Microsoft has switched off password sign-in (basic authentication) for IMAP in Microsoft 365 and "
        "is doing the same for SMTP and for Outlook.com; a password that works today may stop working. "
        "The lasting way is OAuth2: auth = \"xoauth2\" with a password_command that prints a fresh access "
        "token (the lines are in [imap] and [smtp] below, commented out until your pbem has them).",
    ),
    address_notes=(
        "Exchange Online (Microsoft 365) delivers moderator+anything@host to the mailbox unless the admin "
        "has turned plus addressing off for the organisation; Outlook.com delivers it too.",
    ),
    folder_notes=(
        "The folders below are made at the top level on first use. Mail Microsoft takes for junk goes to "
        "\"Junk Email\", where pbem does not look: check it when a player's mail seems lost.",
    ),
    server_notes=(
        "Outlook.com's own pages name smtp-mail.outlook.com as its SMTP server: use that host if this one "
        "refuses an Outlook.com account.",
    ),
)

GENERIC = ProviderPreset(
    key="generic",
    name="your provider",
    title="another provider or a server of your own",
    imap=Endpoint(None, IMAP_DEFAULT_PORTS[Security.SSL], Security.SSL),
    smtp=Endpoint(None, SMTP_DEFAULT_PORTS[Security.STARTTLS], Security.STARTTLS),
    login=Login.ASK,
    auth=Auth.PASSWORD,
    plus_addressing=None,
    idle=None,
    sending=(),
    sending_note="Most providers limit how much one account may send in a day: look up your provider's figure.",
    domains=(),
    first_steps=(),
    setup_notes=("Your provider's help pages name the IMAP and SMTP servers and say whether they want an app "
                 "password.",),
    auth_notes=("Some providers want an app password made for pbem instead of the mailbox's own.",),
    address_notes=(
        "pbem needs mail to moderator+anything@host delivered to this mailbox. Most servers do it; Postfix "
        "needs recipient_delimiter = + and some hosts use '-' instead, which pbem cannot use. Send yourself "
        "a mail at such an address to be sure.",
    ),
    folder_notes=("The folders are made on first use, below the top level or wherever the server puts new folders.",),
    server_notes=(
        "security = \"none\" sends the password unencrypted: only for a server on this machine or a test.",
    ),
)

PRESETS: dict[str, ProviderPreset] = {preset.key: preset for preset in (GMAIL, FASTMAIL, OUTLOOK, GENERIC)}


def preset(key: str) -> ProviderPreset:
    """The preset named ``key`` (gmail, fastmail, outlook, generic); ``KeyError`` names the choices."""
    try:
        return PRESETS[key.strip().lower()]
    except KeyError:
        raise KeyError(f"no provider {key!r}; the providers are {', '.join(PRESETS)}") from None


def guess_provider(address: str) -> str | None:
    """The preset whose own domains ``address`` belongs to (a company's domain at Google guesses nothing)."""
    domain = address.rpartition("@")[2].strip().lower()
    for candidate in PRESETS.values():
        if domain in candidate.domains:
            return candidate.key
    return None
