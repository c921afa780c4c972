//! [`OAuthProvider`] (feature `connect-oauth`): a third party the connect
//! route is an OAuth client of, and the two calls the route makes as that
//! client: the authorization URL (code flow, PKCE S256) and the exchange of
//! the code at the token endpoint, through `oauth2`.

use std::fmt;
use std::time::Duration;

use oauth2::basic::BasicClient;
use oauth2::{
    AuthUrl, AuthorizationCode, ClientId, ClientSecret, CsrfToken, PkceCodeChallenge,
    PkceCodeVerifier, RedirectUrl, Scope, TokenResponse as _, TokenUrl,
};

use crate::connect::connection::{Credential, SecretText};

/// How long the token exchange may take.
const EXCHANGE_TIMEOUT: Duration = Duration::from_secs(10);

/// A third party the connect route runs the authorization-code flow with
/// (RFC 6749 §4.1, PKCE S256 of RFC 7636), as a confidential or public
/// client registered there with the connect route's URL as its redirect
/// URI. Declared with
/// [`ConnectorBuilder::oauth`](crate::connect::ConnectorBuilder::oauth).
///
/// `Debug` names the endpoints and the client id, never the secret.
#[derive(Clone)]
pub struct OAuthProvider {
    client_id: String,
    client_secret: Option<SecretText>,
    authorize: String,
    token: String,
    scopes: Vec<String>,
    issuer: Option<String>,
}

impl OAuthProvider {
    /// The client `client_id` of the third party whose authorization
    /// endpoint is `authorize` and token endpoint `token` (absolute URLs;
    /// the connector's build checks them).
    pub fn new(
        client_id: impl Into<String>,
        authorize: impl Into<String>,
        token: impl Into<String>,
    ) -> Self {
        Self {
            client_id: client_id.into(),
            client_secret: None,
            authorize: authorize.into(),
            token: token.into(),
            scopes: Vec::new(),
            issuer: None,
        }
    }

    /// The client's secret (HTTP Basic at the token endpoint); without one
    /// the client is public and PKCE alone binds the code.
    #[must_use]
    pub fn client_secret(mut self, secret: impl Into<String>) -> Self {
        self.client_secret = Some(SecretText::new(secret.into()));
        self
    }

    /// The scopes to ask for.
    #[must_use]
    pub fn scopes<S: Into<String>>(mut self, scopes: impl IntoIterator<Item = S>) -> Self {
        self.scopes = scopes.into_iter().map(Into::into).collect();
        self
    }

    /// The third party's issuer identifier: the callback then requires the
    /// `iss` parameter (RFC 9207) to be exactly it, so that a response from
    /// another authorization server (a mix-up) is refused before its code
    /// is used. Set it when the third party sends `iss` (its metadata says
    /// `authorization_response_iss_parameter_supported`).
    #[must_use]
    pub fn issuer(mut self, issuer: impl Into<String>) -> Self {
        self.issuer = Some(issuer.into());
        self
    }

    /// Whether a callback's `iss` parameter is acceptable: anything when no
    /// issuer is set, else exactly the issuer.
    pub(crate) fn accepts_issuer(&self, iss: Option<&str>) -> bool {
        match &self.issuer {
            None => true,
            Some(issuer) => iss == Some(issuer.as_str()),
        }
    }

    /// Whether both endpoints are absolute URLs the client can use.
    pub(crate) fn is_valid(&self) -> bool {
        AuthUrl::new(self.authorize.clone()).is_ok() && TokenUrl::new(self.token.clone()).is_ok()
    }

    /// Where to send the browser: the authorization endpoint with this
    /// client, `redirect`, the scopes, `state` and the S256 challenge of
    /// `verifier`.
    pub(crate) fn authorize_url(
        &self,
        redirect: &str,
        state: &str,
        verifier: &str,
    ) -> Option<String> {
        let client = BasicClient::new(ClientId::new(self.client_id.clone()))
            .set_auth_uri(AuthUrl::new(self.authorize.clone()).ok()?)
            .set_redirect_uri(RedirectUrl::new(redirect.to_owned()).ok()?);
        let challenge = PkceCodeChallenge::from_code_verifier_sha256(&PkceCodeVerifier::new(
            verifier.to_owned(),
        ));
        let (url, _) = client
            .authorize_url(|| CsrfToken::new(state.to_owned()))
            .add_scopes(self.scopes.iter().cloned().map(Scope::new))
            .set_pkce_challenge(challenge)
            .url();
        Some(url.into())
    }

    /// Exchanges `code` with `verifier` at the token endpoint: the tokens,
    /// or why not (never a token or the code).
    pub(crate) async fn exchange(
        &self,
        redirect: &str,
        code: &str,
        verifier: &str,
        now: i64,
    ) -> Result<Credential, String> {
        let token =
            TokenUrl::new(self.token.clone()).map_err(|_| "invalid token URL".to_owned())?;
        let redirect =
            RedirectUrl::new(redirect.to_owned()).map_err(|_| "invalid redirect URL".to_owned())?;
        let mut client = BasicClient::new(ClientId::new(self.client_id.clone()))
            .set_token_uri(token)
            .set_redirect_uri(redirect);
        if let Some(secret) = &self.client_secret {
            client = client.set_client_secret(ClientSecret::new(secret.as_str().to_owned()));
        }
        // No redirects: a token endpoint that redirects is not followed
        // (oauth2's advice against SSRF).
        let http = oauth2::reqwest::ClientBuilder::new()
            .redirect(oauth2::reqwest::redirect::Policy::none())
            .timeout(EXCHANGE_TIMEOUT)
            .build()
            .map_err(|_| "no HTTP client".to_owned())?;
        let response = client
            .exchange_code(AuthorizationCode::new(code.to_owned()))
            .set_pkce_verifier(PkceCodeVerifier::new(verifier.to_owned()))
            .request_async(&http)
            .await
            .map_err(|error| exchange_error(&error))?;
        Ok(Credential::Tokens {
            access_token: SecretText::new(response.access_token().secret().clone()),
            refresh_token: response
                .refresh_token()
                .map(|token| SecretText::new(token.secret().clone())),
            token_type: token_type(response.token_type()),
            expires_at: response
                .expires_in()
                .and_then(|left| now.checked_add(i64::try_from(left.as_secs()).ok()?)),
            scope: response.scopes().map(|scopes| {
                scopes
                    .iter()
                    .map(|scope| scope.as_str())
                    .collect::<Vec<_>>()
                    .join(" ")
            }),
        })
    }
}

/// Why an exchange failed, in words without the response body.
fn exchange_error<RE: std::error::Error + 'static>(
    error: &oauth2::RequestTokenError<RE, oauth2::basic::BasicErrorResponse>,
) -> String {
    match error {
        oauth2::RequestTokenError::ServerResponse(response) => {
            format!(
                "the token endpoint refused the code: {}",
                response.error().as_ref()
            )
        }
        oauth2::RequestTokenError::Request(_) => {
            "the token endpoint could not be reached".to_owned()
        }
        oauth2::RequestTokenError::Parse(..) => "the token response did not parse".to_owned(),
        oauth2::RequestTokenError::Other(_) => "the token exchange failed".to_owned(),
    }
}

fn token_type(kind: &oauth2::basic::BasicTokenType) -> String {
    match kind {
        oauth2::basic::BasicTokenType::Bearer => "bearer".to_owned(),
        oauth2::basic::BasicTokenType::Mac => "mac".to_owned(),
        oauth2::basic::BasicTokenType::Extension(other) => other.clone(),
    }
}

impl fmt::Debug for OAuthProvider {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("OAuthProvider")
            .field("client_id", &self.client_id)
            .field("authorize", &self.authorize)
            .field("token", &self.token)
            .field("scopes", &self.scopes)
            .field("issuer", &self.issuer)
            .finish_non_exhaustive()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_authorization_url_carries_state_and_an_s256_challenge_never_the_verifier() {
        let provider = OAuthProvider::new(
            "client-1",
            "https://idp.example/authorize",
            "https://idp.example/token",
        )
        .client_secret("s3cret")
        .scopes(["contacts.read"]);
        let verifier = "v".repeat(43);
        let url = provider
            .authorize_url("https://tools.example/connect", "the-state", &verifier)
            .expect("a URL");
        assert!(url.starts_with("https://idp.example/authorize?"), "{url}");
        for part in [
            "response_type=code",
            "client_id=client-1",
            "state=the-state",
            "code_challenge_method=S256",
            "code_challenge=",
            "scope=contacts.read",
            "redirect_uri=https%3A%2F%2Ftools.example%2Fconnect",
        ] {
            assert!(url.contains(part), "{part}: {url}");
        }
        assert!(!url.contains(&verifier) && !url.contains("s3cret"), "{url}");
        assert!(!format!("{provider:?}").contains("s3cret"));
    }

    #[test]
    fn a_set_issuer_must_be_the_callbacks_iss() {
        let open = OAuthProvider::new("c", "https://a/authorize", "https://a/token");
        assert!(open.accepts_issuer(None) && open.accepts_issuer(Some("https://b")));
        let pinned = open.issuer("https://a");
        assert!(pinned.accepts_issuer(Some("https://a")));
        assert!(!pinned.accepts_issuer(Some("https://b")));
        assert!(!pinned.accepts_issuer(Some("https://a/")));
        assert!(!pinned.accepts_issuer(None));
    }

    #[test]
    fn endpoints_must_be_urls() {
        assert!(OAuthProvider::new("c", "https://a/authorize", "https://a/token").is_valid());
        assert!(!OAuthProvider::new("c", "/authorize", "https://a/token").is_valid());
        assert!(!OAuthProvider::new("c", "https://a/authorize", "token").is_valid());
    }
}
