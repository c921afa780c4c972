//! Mint + open of a `requestState` in both modes, beside the bare primitive
//! over the same bytes: XChaCha20-Poly1305 seal + open, HMAC-SHA256 tag + verify.
//!
//! `cargo bench -p mrtr-guard-peers --bench codec`

use std::hint::black_box;

use chacha20poly1305::aead::{Aead, KeyInit, Payload};
use chacha20poly1305::{XChaCha20Poly1305, XNonce};
use criterion::{Criterion, criterion_group, criterion_main};
use hmac::{Hmac, Mac};
use mrtr_guard::{Binding, Contents, MasterKey, Method, Mode, StateCodec};
use serde_json::{Value, json};
use sha2::Sha256;
use time::OffsetDateTime;

const APP_BYTES: usize = 512;

fn codec(mode: Mode) -> StateCodec {
    StateCodec::builder(
        "https://mcp.example.com/mcp",
        MasterKey::from_bytes(&[7; 32]).expect("key"),
    )
    .mode(mode)
    .build()
    .expect("codec")
}

fn bench_codec(c: &mut Criterion) {
    let args = json!({"orderId": 42, "note": "fragile"});
    let binding = Binding::new("user-7", Method::ToolsCall, "ShipOrder", Some(&args));
    // 512 bytes of application data, as the JSON string's content.
    let contents = Contents::new(json!({"blob": "a".repeat(APP_BYTES - 11)}));
    assert_eq!(
        serde_json::to_vec(contents.app()).expect("json").len(),
        APP_BYTES
    );
    let now = OffsetDateTime::from_unix_timestamp(1_800_000_000).expect("time");

    let mut group = c.benchmark_group("state");
    for (name, mode) in [("sealed", Mode::Sealed), ("signed", Mode::Signed)] {
        let codec = codec(mode);
        group.bench_function(format!("{name}/mint+open/{APP_BYTES}"), |b| {
            b.iter(|| {
                let token = codec
                    .start_at(&binding, black_box(&contents), now)
                    .expect("mint");
                codec
                    .open_at::<Value>(black_box(&token), &binding, now)
                    .expect("open")
            });
        });
        let token = codec.start_at(&binding, &contents, now).expect("mint");
        group.bench_function(format!("{name}/open/{APP_BYTES}"), |b| {
            b.iter(|| {
                codec
                    .open_at::<Value>(black_box(&token), &binding, now)
                    .expect("open")
            });
        });
    }

    // The bare primitives over the bytes a token protects: the claims JSON
    // (about 690 bytes with 512 B of app data) and a context of the same size
    // as the codec's (about 150 bytes).
    let plaintext = vec![0x61u8; 690];
    let aad = vec![0x62u8; 150];
    let cipher = XChaCha20Poly1305::new(&[7u8; 32].into());
    let nonce = XNonce::from([9u8; 24]);
    group.bench_function(
        format!("bare-xchacha20poly1305/seal+open/{APP_BYTES}"),
        |b| {
            b.iter(|| {
                let sealed = cipher
                    .encrypt(
                        &nonce,
                        Payload {
                            msg: black_box(&plaintext),
                            aad: &aad,
                        },
                    )
                    .expect("seal");
                cipher
                    .decrypt(
                        &nonce,
                        Payload {
                            msg: &sealed,
                            aad: &aad,
                        },
                    )
                    .expect("open")
            });
        },
    );
    group.bench_function(format!("bare-hmac-sha256/tag+verify/{APP_BYTES}"), |b| {
        b.iter(|| {
            let mut mac = <Hmac<Sha256> as KeyInit>::new_from_slice(&[7u8; 32]).expect("key");
            mac.update(&aad);
            mac.update(black_box(&plaintext));
            let tag = mac.finalize().into_bytes();
            let mut check = <Hmac<Sha256> as KeyInit>::new_from_slice(&[7u8; 32]).expect("key");
            check.update(&aad);
            check.update(black_box(&plaintext));
            check.verify_slice(&tag).expect("verify");
        });
    });
    group.finish();
}

criterion_group!(benches, bench_codec);
criterion_main!(benches);
