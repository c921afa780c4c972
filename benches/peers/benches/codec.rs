//! `requestState` mint and verify in both modes, beside the peer token crates
//! and the bare primitives, at 64 B, 512 B and 4 KiB of application data.
//!
//! `cargo bench -p mrtr-guard-peers --bench codec`
//!
//! Every token carries the same application data, a JSON object of exactly
//! `size` bytes, and every verify ends with that data parsed back into a
//! `serde_json::Value`:
//!
//! | mode | who | construction |
//! | --- | --- | --- |
//! | sealed | `mrtr-guard` | XChaCha20-Poly1305, JSON claims, binding as AAD |
//! | sealed | `pasetors-v4.local` | XChaCha20 + BLAKE2b-MAC, JSON claims, binding as implicit assertion |
//! | sealed | `branca` | XChaCha20-Poly1305, base62 |
//! | sealed | `fernet` | AES-128-CBC + HMAC-SHA256 |
//! | sealed | `cookie-private` | AES-256-GCM, cookie name as AAD |
//! | sealed | `bare-xchacha20poly1305` | seal + open of our claims bytes and context, no encoding |
//! | signed | `mrtr-guard` | HMAC-SHA256, JSON claims, binding in the MAC |
//! | signed | `jsonwebtoken-hs256` | HMAC-SHA256, JSON claims (`exp` checked) |
//! | signed | `cookie-signed` | HMAC-SHA256 |
//! | signed | `bare-hmac-sha256` | tag + verify of our context and claims bytes, no encoding |
//!
//! Groups: `{sealed,signed}-mint+verify` (one mint, then one verify of the
//! fresh token) and `{sealed,signed}-verify` (verify only).

#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::indexing_slicing,
    clippy::panic,
    clippy::arithmetic_side_effects,
    clippy::cast_possible_truncation,
    clippy::cast_possible_wrap,
    clippy::cast_sign_loss,
    missing_docs,
    reason = "benchmark code (the workspace lints are for the library): a panic is a failed run"
)]

use std::hint::black_box;
use std::time::Duration;

use base64::Engine as _;
use base64::engine::general_purpose::{URL_SAFE, URL_SAFE_NO_PAD};
use chacha20poly1305::aead::{Aead, AeadInOut, KeyInit, Payload};
use chacha20poly1305::{XChaCha20Poly1305, XNonce};
use cookie::{Cookie, CookieJar};
use criterion::{BenchmarkId, Criterion, criterion_group, criterion_main};
use hmac::{Hmac, Mac};
use mrtr_guard::{Binding, MasterKey, Method, Mode, StateCodec, StateContents};
use mrtr_guard_peers::app_data;
use pasetors::claims::ClaimsValidationRules;
use pasetors::keys::SymmetricKey;
use pasetors::token::UntrustedToken;
use pasetors::version4::V4;
use pasetors::{Local, local};
use serde::{Deserialize, Serialize};
use serde_json::{Value, json};
use sha2::Sha256;
use time::OffsetDateTime;

/// Application-data sizes, in bytes of JSON.
const SIZES: [usize; 3] = [64, 512, 4096];
const AUDIENCE: &str = "https://mcp.example.com/mcp";
const PRINCIPAL: &str = "user-7";
const TARGET: &str = "ShipOrder";
const KEY: [u8; 32] = [7; 32];

/// One token implementation: mint a token carrying `app`; verify one and hand
/// its application data, parsed, to a callback.
struct Peer<'a> {
    name: &'static str,
    mint: Box<dyn Fn(&Value) -> String + 'a>,
    verify: Verify<'a>,
}

/// Verifies a token and hands its application data to the callback.
type Verify<'a> = Box<dyn Fn(&str, &mut dyn FnMut(&Value)) + 'a>;

impl Peer<'_> {
    fn verify(&self, token: &str) {
        (self.verify)(token, &mut |app| {
            black_box(app);
        });
    }

    fn round_trips(&self, app: &Value) -> bool {
        let mut same = false;
        (self.verify)(&(self.mint)(app), &mut |back| same = back == app);
        same
    }
}

fn ours<'a>(mode: Mode, binding: &'a Binding<'a>, now: OffsetDateTime) -> Peer<'a> {
    let codec = std::rc::Rc::new(
        StateCodec::builder(AUDIENCE, MasterKey::from_bytes(&KEY).expect("key"))
            .mode(mode)
            .build()
            .expect("codec"),
    );
    let opener = codec.clone();
    Peer {
        name: "mrtr-guard",
        mint: Box::new(move |app| {
            codec
                .start_at(binding, &StateContents::new(app), now)
                .expect("mint")
        }),
        verify: Box::new(move |token, app| {
            app(opener
                .open_at::<Value>(token, binding, now)
                .expect("open")
                .app());
        }),
    }
}

/// PASETO v4.local with the usual claims (`iat`, `nbf`, `exp`, checked on
/// verify), the data under `app`, and our context as implicit assertion.
fn pasetors<'a>(context: &'a [u8]) -> Peer<'a> {
    let key = SymmetricKey::<V4>::from(&KEY).expect("key");
    let opener = key.clone();
    Peer {
        name: "pasetors-v4.local",
        mint: Box::new(move |app| {
            let mut claims = pasetors::claims::Claims::new().expect("claims");
            claims.add_additional("app", app.clone()).expect("claim");
            local::encrypt(&key, &claims, None, Some(context)).expect("mint")
        }),
        verify: Box::new(move |token, app| {
            let untrusted = UntrustedToken::<Local, V4>::try_from(token).expect("token");
            let rules = ClaimsValidationRules::new();
            let trusted =
                local::decrypt(&opener, &untrusted, &rules, None, Some(context)).expect("open");
            app(trusted
                .payload_claims()
                .and_then(|c| c.get_claim("app"))
                .expect("app"));
        }),
    }
}

/// Branca: the JSON bytes as payload, its own timestamp, a 10-minute TTL.
fn branca<'a>() -> Peer<'a> {
    let minter = std::cell::RefCell::new(branca::Branca::new(&KEY).expect("key"));
    let opener = branca::Branca::new(&KEY).expect("key");
    Peer {
        name: "branca",
        mint: Box::new(move |app| {
            let bytes = serde_json::to_vec(app).expect("json");
            minter.borrow_mut().encode(&bytes).expect("mint")
        }),
        verify: Box::new(move |token, app| {
            let bytes = opener.decode(token, 600).expect("open");
            app(&serde_json::from_slice(&bytes).expect("json"));
        }),
    }
}

/// Fernet: the JSON bytes as payload, its own timestamp, a 10-minute TTL.
fn fernet<'a>() -> Peer<'a> {
    let key = fernet::Fernet::new(&URL_SAFE.encode(KEY)).expect("key");
    let opener = key.clone();
    Peer {
        name: "fernet",
        mint: Box::new(move |app| key.encrypt(&serde_json::to_vec(app).expect("json"))),
        verify: Box::new(move |token, app| {
            let bytes = opener.decrypt_with_ttl(token, 600).expect("open");
            app(&serde_json::from_slice(&bytes).expect("json"));
        }),
    }
}

/// cookie's private jar: the JSON text as the cookie's value.
fn cookie_private<'a>() -> Peer<'a> {
    let key = cookie::Key::from(&[7u8; 64]);
    let opener = key.clone();
    Peer {
        name: "cookie-private",
        mint: Box::new(move |app| {
            let mut jar = CookieJar::new();
            jar.private_mut(&key)
                .add(Cookie::new("state", app.to_string()));
            jar.get("state").expect("cookie").value().to_owned()
        }),
        verify: Box::new(move |token, app| {
            let jar = CookieJar::new();
            let cookie = jar
                .private(&opener)
                .decrypt(Cookie::new("state", token.to_owned()))
                .expect("open");
            app(&serde_json::from_str(cookie.value()).expect("json"));
        }),
    }
}

/// cookie's signed jar: the JSON text as the cookie's value.
fn cookie_signed<'a>() -> Peer<'a> {
    let key = cookie::Key::from(&[7u8; 64]);
    let opener = key.clone();
    Peer {
        name: "cookie-signed",
        mint: Box::new(move |app| {
            let mut jar = CookieJar::new();
            jar.signed_mut(&key)
                .add(Cookie::new("state", app.to_string()));
            jar.get("state").expect("cookie").value().to_owned()
        }),
        verify: Box::new(move |token, app| {
            let jar = CookieJar::new();
            let cookie = jar
                .signed(&opener)
                .verify(Cookie::new("state", token.to_owned()))
                .expect("verify");
            app(&serde_json::from_str(cookie.value()).expect("json"));
        }),
    }
}

#[derive(Serialize, Deserialize)]
struct JwtClaims {
    iat: i64,
    exp: i64,
    app: Value,
}

/// JWT HS256 with `iat` and `exp` (checked on verify) and the data under `app`.
fn jsonwebtoken<'a>() -> Peer<'a> {
    let encoding = jsonwebtoken::EncodingKey::from_secret(&KEY).expect("key");
    let decoding = jsonwebtoken::DecodingKey::from_secret(&KEY).expect("key");
    let validation = jsonwebtoken::Validation::new(jsonwebtoken::Algorithm::HS256);
    Peer {
        name: "jsonwebtoken-hs256",
        mint: Box::new(move |app| {
            let now = OffsetDateTime::now_utc().unix_timestamp();
            let claims = JwtClaims {
                iat: now,
                exp: now + 600,
                app: app.clone(),
            };
            jsonwebtoken::encode(&jsonwebtoken::Header::default(), &claims, &encoding)
                .expect("mint")
        }),
        verify: Box::new(move |token, app| {
            app(
                &jsonwebtoken::decode::<JwtClaims>(token, &decoding, &validation)
                    .expect("verify")
                    .claims
                    .app,
            );
        }),
    }
}

/// The claims bytes and the context our codec authenticates for `binding`,
/// recovered from a signed token (whose claims travel in clear).
fn our_bytes(
    mode: Mode,
    binding: &Binding<'_>,
    app: &Value,
    now: OffsetDateTime,
) -> (Vec<u8>, Vec<u8>) {
    let codec = StateCodec::builder(AUDIENCE, MasterKey::from_bytes(&KEY).expect("key"))
        .mode(Mode::Signed)
        .build()
        .expect("codec");
    let token = codec
        .start_at(binding, &StateContents::new(app), now)
        .expect("mint");
    let bytes = URL_SAFE_NO_PAD.decode(token).expect("base64");
    // version(1) | key id(4) | claims | tag(32)
    let claims = bytes[5..bytes.len() - 32].to_vec();
    // docs/FORMAT.md §4: LP(label) | LP(header) | LP(audience) | 0x01 | LP(principal)
    // | LP(method) | LP(target) | digest(32); the header is 29 bytes sealed, 5 signed.
    let header_len = if mode == Mode::Sealed { 29 } else { 5 };
    let fields = [
        "mrtr-guard/v1/sealed".len(),
        header_len,
        AUDIENCE.len(),
        PRINCIPAL.len(),
        "tools/call".len(),
        TARGET.len(),
    ];
    let context_len = fields.iter().map(|len| 8 + len).sum::<usize>() + 1 + 32;
    (claims, vec![0x62; context_len])
}

fn bench_codec(c: &mut Criterion) {
    let args = json!({"orderId": 42, "note": "fragile"});
    let binding = Binding::new(PRINCIPAL, Method::ToolsCall, TARGET, Some(&args));
    let now = OffsetDateTime::now_utc();
    // Same length as our context: pasetors' implicit assertion.
    let context = our_bytes(Mode::Sealed, &binding, &app_data(64), now).1;

    let sealed = [
        ours(Mode::Sealed, &binding, now),
        pasetors(&context),
        branca(),
        fernet(),
        cookie_private(),
    ];
    let signed = [
        ours(Mode::Signed, &binding, now),
        jsonwebtoken(),
        cookie_signed(),
    ];

    for (mode, name, peers) in [
        (Mode::Sealed, "sealed", &sealed[..]),
        (Mode::Signed, "signed", &signed[..]),
    ] {
        for size in SIZES {
            let app = app_data(size);
            let mut group = c.benchmark_group(format!("{name}-mint+verify"));
            for peer in peers {
                assert!(peer.round_trips(&app), "{}", peer.name);
                group.bench_function(BenchmarkId::new(peer.name, size), |b| {
                    b.iter(|| peer.verify(&(peer.mint)(black_box(&app))));
                });
            }
            bare_round_trip(&mut group, mode, &binding, &app, now, size);
            format_floor(&mut group, mode, &binding, &app, now, size);
            group.finish();

            let mut group = c.benchmark_group(format!("{name}-verify"));
            for peer in peers {
                let token = (peer.mint)(&app);
                group.bench_function(BenchmarkId::new(peer.name, size), |b| {
                    b.iter(|| peer.verify(black_box(&token)));
                });
            }
            bare_verify(&mut group, mode, &binding, &app, now, size);
            group.finish();
        }
    }
}

/// The physical limit of a round trip: the bare primitive over exactly the
/// bytes our token authenticates, with no encoding, no JSON, no randomness.
fn bare_round_trip(
    group: &mut criterion::BenchmarkGroup<'_, criterion::measurement::WallTime>,
    mode: Mode,
    binding: &Binding<'_>,
    app: &Value,
    now: OffsetDateTime,
    size: usize,
) {
    let (claims, context) = our_bytes(mode, binding, app, now);
    if mode == Mode::Sealed {
        let nonce = XNonce::from([9u8; 24]);
        group.bench_function(BenchmarkId::new("bare-xchacha20poly1305", size), |b| {
            b.iter(|| {
                let cipher = XChaCha20Poly1305::new(&KEY.into());
                let aad = &context[..];
                let sealed = cipher
                    .encrypt(
                        &nonce,
                        Payload {
                            msg: black_box(&claims),
                            aad,
                        },
                    )
                    .expect("seal");
                cipher
                    .decrypt(&nonce, Payload { msg: &sealed, aad })
                    .expect("open")
            });
        });
    } else {
        // Keyed once, cloned per use: what the codec does.
        let keyed = <Hmac<Sha256> as KeyInit>::new_from_slice(&KEY).expect("key");
        group.bench_function(BenchmarkId::new("bare-hmac-sha256", size), |b| {
            b.iter(|| {
                let mut mac = keyed.clone();
                mac.update(&context);
                mac.update(black_box(&claims));
                let tag = mac.finalize().into_bytes();
                let mut check = keyed.clone();
                check.update(&context);
                check.update(black_box(&claims));
                check.verify_slice(&tag).expect("verify");
            });
        });
    }
}

/// The physical limit of a verify: bare open, or bare tag check.
fn bare_verify(
    group: &mut criterion::BenchmarkGroup<'_, criterion::measurement::WallTime>,
    mode: Mode,
    binding: &Binding<'_>,
    app: &Value,
    now: OffsetDateTime,
    size: usize,
) {
    let (claims, context) = our_bytes(mode, binding, app, now);
    if mode == Mode::Sealed {
        let nonce = XNonce::from([9u8; 24]);
        let cipher = XChaCha20Poly1305::new(&KEY.into());
        let aad = &context[..];
        let sealed = cipher
            .encrypt(&nonce, Payload { msg: &claims, aad })
            .expect("seal");
        group.bench_function(BenchmarkId::new("bare-xchacha20poly1305", size), |b| {
            b.iter(|| {
                XChaCha20Poly1305::new(&KEY.into())
                    .decrypt(
                        &nonce,
                        Payload {
                            msg: black_box(&sealed),
                            aad,
                        },
                    )
                    .expect("open")
            });
        });
    } else {
        let keyed = <Hmac<Sha256> as KeyInit>::new_from_slice(&KEY).expect("key");
        let mut mac = keyed.clone();
        mac.update(&context);
        mac.update(&claims);
        let tag = mac.finalize().into_bytes();
        group.bench_function(BenchmarkId::new("bare-hmac-sha256", size), |b| {
            b.iter(|| {
                let mut check = keyed.clone();
                check.update(&context);
                check.update(black_box(&claims));
                check.verify_slice(&tag).expect("verify");
            });
        });
    }
}

/// The claims of docs/FORMAT.md §5, as the format floor writes them.
#[derive(Serialize)]
struct FloorClaimsOut<'a> {
    iat: i64,
    exp: i64,
    dl: i64,
    rnd: u32,
    fid: &'a str,
    q: serde_json::Map<String, Value>,
    ans: serde_json::Map<String, Value>,
    app: &'a Value,
}

/// The same claims, parsed back.
#[derive(Deserialize)]
#[allow(dead_code, reason = "parsed, as a verifier must, but not read")]
struct FloorClaimsIn {
    iat: i64,
    exp: i64,
    dl: i64,
    rnd: u32,
    fid: String,
    q: serde_json::Map<String, Value>,
    ans: serde_json::Map<String, Value>,
    app: Value,
}

/// The floor of the token *format*, not of the primitive: the bare
/// primitive plus the work docs/FORMAT.md itself requires of any
/// implementation for one mint and one verify, each done with the fastest
/// crate at hand and nothing else: one draw from the OS generator (flow id,
/// and nonce when sealed), the claims JSON written with the application data
/// in it and parsed back (`serde_json`), and the token's bytes encoded to
/// base64url text and decoded again (the `base64` crate, table-driven). No
/// binding context is built (it is precomputed), no time is read, no claim
/// is checked, nothing is wiped. What mrtr-guard spends above this line is
/// its own; what this line spends above the bare primitive, the format
/// spends.
fn format_floor(
    group: &mut criterion::BenchmarkGroup<'_, criterion::measurement::WallTime>,
    mode: Mode,
    binding: &Binding<'_>,
    app: &Value,
    now: OffsetDateTime,
    size: usize,
) {
    let (_, context) = our_bytes(mode, binding, app, now);
    let iat = now.unix_timestamp();
    let claims_json = |fid: &[u8], out: &mut Vec<u8>| {
        let fid = URL_SAFE_NO_PAD.encode(fid);
        let claims = FloorClaimsOut {
            iat,
            exp: iat + 600,
            dl: iat + 1800,
            rnd: 1,
            fid: &fid,
            q: serde_json::Map::new(),
            ans: serde_json::Map::new(),
            app,
        };
        serde_json::to_writer(out, &claims).expect("json");
    };
    let parse = |claims: &[u8]| {
        let claims: FloorClaimsIn = serde_json::from_slice(claims).expect("json");
        black_box(claims.app);
    };
    if mode == Mode::Sealed {
        let cipher = XChaCha20Poly1305::new(&KEY.into());
        group.bench_function(BenchmarkId::new("format-floor", size), |b| {
            b.iter(|| {
                let mut random = [0u8; 16 + 24];
                getrandom::fill(&mut random).expect("random");
                let (fid, nonce) = random.split_at(16);
                let nonce = XNonce::try_from(nonce).expect("nonce");
                let mut token = Vec::with_capacity(size + 256);
                token.extend_from_slice(&[0x01; 5]);
                token.extend_from_slice(&nonce);
                claims_json(fid, &mut token);
                let tag = cipher
                    .encrypt_inout_detached(&nonce, &context, token[29..].as_mut().into())
                    .expect("seal");
                token.extend_from_slice(&tag);
                let text = URL_SAFE_NO_PAD.encode(&token);

                let mut bytes = URL_SAFE_NO_PAD.decode(black_box(&text)).expect("base64");
                let (head, rest) = bytes.split_at_mut(29);
                let (body, tag) = rest.split_at_mut(rest.len() - 16);
                let nonce = XNonce::try_from(&head[5..]).expect("nonce");
                let tag = chacha20poly1305::Tag::try_from(&*tag).expect("tag");
                cipher
                    .decrypt_inout_detached(&nonce, &context, body.into(), &tag)
                    .expect("open");
                parse(body);
            });
        });
    } else {
        let keyed = <Hmac<Sha256> as KeyInit>::new_from_slice(&KEY).expect("key");
        let mac = |body: &[u8]| {
            let mut mac = keyed.clone();
            mac.update(&context);
            mac.update(&(body.len() as u64).to_le_bytes());
            mac.update(body);
            mac
        };
        group.bench_function(BenchmarkId::new("format-floor", size), |b| {
            b.iter(|| {
                let mut fid = [0u8; 16];
                getrandom::fill(&mut fid).expect("random");
                let mut token = Vec::with_capacity(size + 256);
                token.extend_from_slice(&[0x02; 5]);
                claims_json(&fid, &mut token);
                let tag = mac(&token[5..]).finalize().into_bytes();
                token.extend_from_slice(&tag);
                let text = URL_SAFE_NO_PAD.encode(&token);

                let bytes = URL_SAFE_NO_PAD.decode(black_box(&text)).expect("base64");
                let (body, tag) = bytes[5..].split_at(bytes.len() - 5 - 32);
                mac(body).verify_slice(tag).expect("verify");
                parse(body);
            });
        });
    }
}

fn config() -> Criterion {
    // Many functions at three sizes: shorter windows than criterion's
    // default keep the whole suite within a few minutes on a shared machine.
    Criterion::default()
        .warm_up_time(Duration::from_secs(1))
        .measurement_time(Duration::from_secs(3))
        .sample_size(50)
}

criterion_group! {
    name = benches;
    config = config();
    targets = bench_codec
}
criterion_main!(benches);
