//! The demo's connect tool, `weather_report`, free of any transport: the
//! weather service's API key is a secret, so it is never asked in a form
//! the client sees. The round asks through a connect link
//! (`Round::connect`); the user types the key on the server's own connect
//! page, signed in as themselves; the tool reads the connection, which
//! never reaches the client.

use std::sync::Arc;

use mrtr_guard::connect::{Connector, ConnectorConfigError, MemoryConnectionStore};
use mrtr_guard::form::FormError;
use mrtr_guard::{Field, Form, KeyRing, MasterKey, Round, RpcError, Stop};

/// The connection `weather_report` needs.
pub const WEATHER: &str = "weather-api";

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
/// becomes `.../connect`), sealing with `key`, connections in memory.
///
/// # Errors
///
/// A form or a setting the builder refuses.
pub fn connector(
    audience: &str,
    key: MasterKey,
) -> Result<Arc<Connector>, Box<dyn std::error::Error>> {
    let route = connect_route(audience);
    let store = Arc::new(MemoryConnectionStore::new(10_000));
    let connector = Connector::builder(route, KeyRing::new(key), store)
        .secret(WEATHER, weather_form()?)
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
