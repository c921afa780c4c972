//! The demo's connect tools, free of any transport. `weather_report` needs
//! the user's weather service API key, a secret, so it is never asked in a
//! form the client sees: the round asks through a connect link
//! (`Round::connect`), and the user types the key on the server's own
//! connect page, signed in as themselves. `import_contacts` needs access to
//! the user's account at a contacts provider: the same link sends the
//! browser through an OAuth authorization (code flow, PKCE) at the
//! provider. Either tool reads its connection, which never reaches the
//! client.

use std::sync::Arc;

use mrtr_guard::connect::{
    ConnectionStore, Connector, ConnectorBuilder, ConnectorConfigError, MemoryConnectionStore,
    OAuthProvider,
};
use mrtr_guard::form::FormError;
use mrtr_guard::{Field, Form, KeyRing, MasterKey, ReplayGuard, Round, RpcError, Stop};

/// The connection `weather_report` needs.
pub const WEATHER: &str = "weather-api";

/// The connection `import_contacts` needs.
pub const CONTACTS: &str = "contacts";

/// The connect page's form: the key, as the weather service issues them.
pub fn weather_form() -> Result<Form, FormError> {
    Form::builder("Your weather service API key")
        .field(
            Field::string("apiKey")
                .title("API key")
                .description("From your weather service account page.")
                .min_length(16)
                .max_length(128)
                .required(),
        )
        .build()
}

/// The demo's connector: its route beside the MCP endpoint (`.../mcp`
/// becomes `.../connect`), sealing with `key`, connections in `store` and
/// links used once under `guard` (each in this process' memory when
/// `None`).
///
/// # Errors
///
/// A form or a setting the builder refuses.
pub fn connector(
    audience: &str,
    key: MasterKey,
    store: Option<Arc<dyn ConnectionStore>>,
    guard: Option<Arc<dyn ReplayGuard>>,
    contacts: Option<OAuthProvider>,
) -> Result<Arc<Connector>, Box<dyn std::error::Error>> {
    let route = connect_route(audience);
    let store = store.unwrap_or_else(|| Arc::new(MemoryConnectionStore::new(10_000)));
    let mut builder = Connector::builder(route, KeyRing::new(key), store);
    if let Some(guard) = guard {
        builder = builder.replay_guard(guard);
    }
    connect(builder, contacts)
}

/// The demo's connections on `builder`: the weather key, and the contacts
/// provider when there is one.
///
/// # Errors
///
/// A form or a setting the builder refuses.
pub fn connect(
    builder: ConnectorBuilder,
    contacts: Option<OAuthProvider>,
) -> Result<Arc<Connector>, Box<dyn std::error::Error>> {
    let mut builder = builder.secret(WEATHER, weather_form()?);
    if let Some(provider) = contacts {
        builder = builder.oauth(CONTACTS, provider);
    }
    let connector = builder
        .build()
        .map_err(|error: ConnectorConfigError| format!("connect route: {error}"))?;
    Ok(Arc::new(connector))
}

/// The connect route's URL beside the MCP endpoint `audience`.
pub fn connect_route(audience: &str) -> String {
    let base = audience.strip_suffix("/mcp").unwrap_or(audience);
    format!("{base}/connect")
}

/// `weather_report` for `city`: the forecast fetched with the user's own
/// key, or a stop while the key is not connected.
pub fn weather_report(
    round: &mut Round<'_>,
    connector: &Connector,
    city: &str,
) -> Result<String, Stop> {
    // A report takes a while: a task, for a client with the extension (the
    // link is then asked inside the task, and answered by tasks/update).
    round.task()?;
    let connection = round.connect(
        "weather-key",
        "Connect your weather service: enter your API key on the page this link opens.",
        &connector.secret(WEATHER),
    )?;
    let key = connection
        .secret("apiKey")
        .ok_or_else(|| Stop::Error(RpcError::internal_error()))?;
    // The demo's "weather service": it only needs to know the key works.
    Ok(format!(
        "Weather for {city}: sunny. Fetched with your {}-character API key.",
        key.chars().count()
    ))
}

/// The contacts provider the environment names, if any: its issuer
/// `MRTR_GUARD_CONTACTS_ISSUER` (authorization at `/auth`, tokens at
/// `/token`, as oidc-provider serves them), the client
/// `MRTR_GUARD_CONTACTS_CLIENT_ID` and `MRTR_GUARD_CONTACTS_CLIENT_SECRET`.
#[must_use]
pub fn contacts_provider() -> Option<OAuthProvider> {
    let issuer = std::env::var("MRTR_GUARD_CONTACTS_ISSUER").ok()?;
    let id = std::env::var("MRTR_GUARD_CONTACTS_CLIENT_ID").ok()?;
    let provider = OAuthProvider::new(id, format!("{issuer}/auth"), format!("{issuer}/token"))
        .scopes(["openid", "contacts.read"])
        .issuer(issuer);
    Some(match std::env::var("MRTR_GUARD_CONTACTS_CLIENT_SECRET") {
        Ok(secret) => provider.client_secret(secret),
        Err(_) => provider,
    })
}

/// `import_contacts`: the user's contacts, read with the access token the
/// provider issued to this user, or a stop while not connected.
pub fn import_contacts(round: &mut Round<'_>, connector: &Connector) -> Result<String, Stop> {
    let connection = round.connect(
        "contacts",
        "Connect your contacts provider: sign in there through the page this link opens.",
        &connector.oauth(CONTACTS),
    )?;
    if connection.access_token().is_none_or(str::is_empty) {
        return Err(Stop::Error(RpcError::internal_error()));
    }
    // The demo's "import": it only needs to know the provider granted it.
    Ok(format!(
        "Contacts imported with the access your provider granted (scope: {}).",
        connection.scope().unwrap_or("unspecified")
    ))
}
