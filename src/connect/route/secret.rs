//! The secret page: shown once the link opened for its own principal,
//! posted back with the ticket it carries (the CSRF token, bound to the
//! link and to the browser's cookie), validated by the connection's
//! [`Form`] and kept bound to the principal. A submitted value is never
//! written back into a page or a log.

use std::collections::BTreeMap;

use bytes::Bytes;
use http::{Response, StatusCode};
use http_body_util::Full;
use serde_json::{Map, Value, json};
use time::OffsetDateTime;

use crate::connect::connection::{Connection, Credential, SecretText};
use crate::connect::connector::Connector;
use crate::connect::link::{LinkClaims, Sealed};
use crate::connect::route::browser;
use crate::connect::route::events::{event, store_failed};
use crate::connect::route::page::{escape, page, refused};
use crate::form::{Form, Report, Verdict};

/// The page of the secret connection `link` names, with a fresh ticket
/// bound to a fresh cookie, which the response sets.
pub(super) fn show(
    connector: &Connector,
    link: &LinkClaims,
    form: &Form,
    now: OffsetDateTime,
) -> Response<Full<Bytes>> {
    let Some((cookie, digest)) = browser::fresh() else {
        return unavailable();
    };
    let mut ticket = link.clone();
    ticket.browser = Some(digest);
    ticket.expires_at = now
        .unix_timestamp()
        .saturating_add(connector.link_ttl().whole_seconds());
    let Some(ticket) = ticket.seal(connector.keys(), Sealed::Form, connector.route()) else {
        return unavailable();
    };
    let mut response = form_page(form, &ticket, None);
    browser::set(response.headers_mut(), connector, link, &cookie);
    response
}

/// Takes a posted secret page: the ticket must open for this principal and
/// this browser's cookie, the fields must pass the form, and the ticket is
/// then used up. Every refusal of the ticket is the one [`refused`] page.
pub(super) fn submit(
    connector: &Connector,
    principal: Option<&str>,
    headers: &http::HeaderMap,
    fields: &BTreeMap<String, String>,
    now: OffsetDateTime,
) -> Response<Full<Bytes>> {
    let Some(text) = fields.get("ticket") else {
        return refused();
    };
    let Some(ticket) =
        LinkClaims::open(connector.keys(), Sealed::Form, connector.route(), text, now)
    else {
        event("ticket_refused");
        return refused();
    };
    let cookie = browser::cookie(headers, &ticket);
    let browser_ok = browser::matches(ticket.browser, cookie.as_deref());
    if !ticket.is_for(principal) || !browser_ok {
        event(if browser_ok {
            "other_principal"
        } else {
            "csrf"
        });
        return refused();
    }
    let Some(form) = connector.secret_form(&ticket.connection) else {
        return refused();
    };
    let mut content = Map::new();
    for field in form.fields() {
        if let Some(value) = fields.get(field.name()).filter(|value| !value.is_empty()) {
            content.insert(field.name().to_owned(), Value::String(value.clone()));
        }
    }
    let secret = match form.validate(&json!({"action": "accept", "content": content})) {
        Verdict::Accepted(answers) if answers.report().is_clean() => answers,
        Verdict::Accepted(answers) => return form_page(form, text, Some(answers.report())),
        Verdict::Invalid(report) => return form_page(form, text, Some(&report)),
        _ => return refused(),
    };
    if connector.consume(&ticket, Sealed::Form, now).is_err() {
        event("ticket_replayed");
        return refused();
    }
    let mut kept = BTreeMap::new();
    for (name, value) in secret.iter() {
        if let crate::form::AnswerRef::Str(text) = value {
            kept.insert(name.to_owned(), SecretText::new(text.to_owned()));
        }
    }
    let connection = Connection::new(ticket.id, now.unix_timestamp(), Credential::Secret(kept));
    match connector.keep(principal, &ticket.connection, &connection, now) {
        Ok(()) => page(
            StatusCode::OK,
            "Connected",
            "<p>Saved. You can close this page, go back to your client and accept.</p>",
        ),
        Err(error) => {
            store_failed(&error);
            unavailable()
        }
    }
}

/// The form of the secret page, with the reasons a post was refused
/// (never the values posted).
fn form_page(form: &Form, ticket: &str, report: Option<&Report>) -> Response<Full<Bytes>> {
    let schema = form.requested_schema();
    let mut body = String::new();
    if let Some(report) = report {
        body.push_str("<p role=\"alert\">Please correct:</p>\n<ul>\n");
        for issue in report.issues() {
            body.push_str(&format!(
                "<li>{}: {}</li>\n",
                escape(issue.field()),
                escape(&issue.reason().to_string())
            ));
        }
        body.push_str("</ul>\n");
    }
    body.push_str("<form method=\"post\" autocomplete=\"off\">\n");
    body.push_str(&format!(
        "<input type=\"hidden\" name=\"ticket\" value=\"{}\">\n",
        escape(ticket)
    ));
    for field in form.fields() {
        let name = field.name();
        let property = schema
            .get("properties")
            .and_then(|properties| properties.get(name))
            .unwrap_or(&Value::Null);
        let text = |member: &str| property.get(member).and_then(Value::as_str);
        let title = text("title").unwrap_or(name);
        body.push_str(&format!(
            "<p><label for=\"f-{id}\">{title}</label><br>\
             <input type=\"password\" id=\"f-{id}\" name=\"{id}\"{required}{max}></p>\n",
            id = escape(name),
            title = escape(title),
            required = if field.is_required() { " required" } else { "" },
            max = property
                .get("maxLength")
                .and_then(Value::as_u64)
                .map(|max| format!(" maxlength=\"{max}\""))
                .unwrap_or_default(),
        ));
        if let Some(description) = text("description") {
            body.push_str(&format!("<p>{}</p>\n", escape(description)));
        }
    }
    body.push_str("<p><button type=\"submit\">Save</button></p>\n</form>");
    let status = if report.is_some() {
        StatusCode::UNPROCESSABLE_ENTITY
    } else {
        StatusCode::OK
    };
    page(status, form.message(), &body)
}

pub(super) fn unavailable() -> Response<Full<Bytes>> {
    page(
        StatusCode::SERVICE_UNAVAILABLE,
        "Not saved",
        "<p>The service could not save this now. Nothing was saved; try again from your client.</p>",
    )
}
