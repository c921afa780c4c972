//! `#[derive(FormFields)]` and `#[derive(FormChoice)]` (feature `derive`):
//! the derived form equals the one written with the builder, the wire names
//! are serde's, and accepted answers bind back into the type.
#![allow(
    clippy::panic,
    clippy::indexing_slicing,
    reason = "a test fails by panicking; Value indexing reads fixed shapes"
)]

use mrtr_guard::form::{FieldType, Verdict};
use mrtr_guard::{Field, Form, FormChoice, FormFields};
use serde::{Deserialize, Serialize};
use serde_json::{Value, json};

#[derive(Debug, PartialEq, Deserialize, FormChoice)]
#[serde(rename_all = "kebab-case")]
enum Speed {
    /// Doc comments on variants are not shown: options have no description.
    #[form(title = "Standard (5 days)")]
    Standard,
    #[form(title = "Next day")]
    NextDay,
    #[serde(skip)]
    Warehouse,
}

#[derive(Debug, PartialEq, Deserialize, FormChoice)]
#[serde(rename_all = "lowercase")]
enum Extra {
    GiftWrap,
    #[serde(rename = "insured")]
    Insurance,
    #[serde(other)]
    Unknown,
}

/// An alias the macro cannot classify: the compiler checks `max_length`.
type Initials = String;

#[derive(Debug, PartialEq, Deserialize, FormFields)]
#[serde(rename_all = "camelCase")]
struct Order {
    /// As printed on the label,
    ///   under the barcode.
    ///
    /// Ask the carrier if unsure.
    #[form(title = "Tracking number", min_length = 3, max_length = 40)]
    tracking_number: String,
    #[form(minimum = 1, maximum = 10)]
    quantity: u8,
    #[form(minimum = -5, maximum = 5)]
    offset: i32,
    big: u64,
    small: i8,
    express: bool,
    #[form(minimum = 0.5, maximum = 99.5)]
    weight_kg: f64,
    ratio: f32,
    #[form(format = "email")]
    notify: Option<String>,
    #[form(format = "uri", max_length = 200)]
    website: Option<String>,
    #[form(format = "date")]
    ship_on: String,
    #[form(format = "date-time")]
    deliver_by: Option<String>,
    speed: Speed,
    backup_speed: Option<Speed>,
    #[form(min_items = 1, max_items = 2)]
    extras: Vec<Extra>,
    #[form(max_length = 5)]
    initials: Initials,
    #[serde(rename = "ref")]
    reference: Option<String>,
    r#type: Option<String>,
    #[serde(default)]
    priority: i64,
    #[serde(skip)]
    internal_id: u64,
    #[serde(skip_deserializing)]
    audit: String,
}

/// `Order`'s form written field by field, in the same order.
fn by_hand() -> Form {
    let speed = Field::choice("speed")
        .titled_option("standard", "Standard (5 days)")
        .titled_option("next-day", "Next day");
    Form::builder("Order")
        .field(
            Field::string("trackingNumber")
                .required()
                .title("Tracking number")
                .description(
                    "As printed on the label, under the barcode.\n\nAsk the carrier if unsure.",
                )
                .min_length(3)
                .max_length(40),
        )
        .field(Field::integer("quantity").minimum(1).maximum(10).required())
        .field(Field::integer("offset").minimum(-5).maximum(5).required())
        .field(
            Field::integer("big")
                .minimum(0)
                .maximum(u64::MAX)
                .required(),
        )
        .field(
            Field::integer("small")
                .minimum(-128)
                .maximum(127)
                .required(),
        )
        .field(Field::boolean("express").required())
        .field(
            Field::number("weightKg")
                .minimum(0.5)
                .maximum(99.5)
                .required(),
        )
        .field(
            Field::number("ratio")
                .minimum(f32::MIN)
                .maximum(f32::MAX)
                .required(),
        )
        .field(Field::email("notify"))
        .field(Field::uri("website").max_length(200))
        .field(Field::date("shipOn").required())
        .field(Field::date_time("deliverBy"))
        .field(speed.clone().required())
        .field(
            Field::choice("backupSpeed")
                .titled_option("standard", "Standard (5 days)")
                .titled_option("next-day", "Next day"),
        )
        .field(
            Field::multi_choice("extras")
                .options(["giftwrap", "insured"])
                .min_items(1)
                .max_items(2)
                .required(),
        )
        .field(Field::string("initials").max_length(5).required())
        .field(Field::string("ref"))
        .field(Field::string("type"))
        .field(
            Field::integer("priority")
                .minimum(i64::MIN)
                .maximum(i64::MAX),
        )
        .build()
        .unwrap_or_else(|e| panic!("{e}"))
}

fn derived() -> Form {
    Form::of::<Order>("Order")
        .build()
        .unwrap_or_else(|e| panic!("{e}"))
}

#[test]
fn the_derived_form_is_the_one_written_by_hand() {
    let (derived, by_hand) = (derived(), by_hand());
    assert_eq!(derived.requested_schema(), by_hand.requested_schema());
    assert_eq!(derived, by_hand);
    let schema = derived.requested_schema();
    assert_eq!(
        schema["properties"]["speed"]["oneOf"],
        json!([
            {"const": "standard", "title": "Standard (5 days)"},
            {"const": "next-day", "title": "Next day"}
        ])
    );
    assert_eq!(
        schema["properties"]["extras"]["items"],
        json!({"type": "string", "enum": ["giftwrap", "insured"]})
    );
    assert_eq!(schema["properties"]["offset"]["minimum"], json!(-5));
    assert_eq!(
        schema["properties"]["trackingNumber"]["description"],
        "As printed on the label, under the barcode.\n\nAsk the carrier if unsure."
    );
    assert_eq!(schema["properties"]["ref"]["title"], "Ref");
}

#[test]
fn fields_come_in_declaration_order_without_the_skipped_ones() {
    let names: Vec<String> = Order::form_fields()
        .iter()
        .map(|f| f.name().to_owned())
        .collect();
    assert_eq!(
        names,
        [
            "trackingNumber",
            "quantity",
            "offset",
            "big",
            "small",
            "express",
            "weightKg",
            "ratio",
            "notify",
            "website",
            "shipOn",
            "deliverBy",
            "speed",
            "backupSpeed",
            "extras",
            "initials",
            "ref",
            "type",
            "priority"
        ]
    );
    let required: Vec<&str> = ["speed", "backupSpeed", "priority", "notify"]
        .into_iter()
        .filter(|n| derived().field(n).is_some_and(Field::is_required))
        .collect();
    assert_eq!(required, ["speed"]);
}

#[test]
fn an_accepted_answer_binds_into_the_type() {
    let answer = json!({"action": "accept", "content": {
        "trackingNumber": "1Z999", "quantity": 2, "offset": -3, "big": 7, "small": -1,
        "express": true, "weightKg": 1.5, "ratio": 0.25, "notify": "a@example.com",
        "shipOn": "2026-02-28", "speed": "next-day", "extras": ["insured", "giftwrap"],
        "initials": "AB", "ref": "PO-1", "type": "gift", "audit": "ignored"
    }});
    let Verdict::Accepted(answers) = derived().validate(&answer) else {
        panic!("not accepted")
    };
    let order: Order = answers.bind().unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(
        order,
        Order {
            tracking_number: "1Z999".into(),
            quantity: 2,
            offset: -3,
            big: 7,
            small: -1,
            express: true,
            weight_kg: 1.5,
            ratio: 0.25,
            notify: Some("a@example.com".into()),
            website: None,
            ship_on: "2026-02-28".into(),
            deliver_by: None,
            speed: Speed::NextDay,
            backup_speed: None,
            extras: vec![Extra::Insurance, Extra::GiftWrap],
            initials: "AB".into(),
            reference: Some("PO-1".into()),
            r#type: Some("gift".into()),
            priority: 0,
            internal_id: 0,
            audit: String::new(),
        }
    );
    // Out of the derived bounds: refused before binding.
    let mut too_many = answer.clone();
    too_many["content"]["quantity"] = json!(11);
    assert!(matches!(derived().validate(&too_many), Verdict::Invalid(_)));
}

#[test]
fn a_skipped_variant_is_not_offered_and_a_choice_is_a_field_type() {
    assert_eq!(
        Speed::options(),
        [
            ("standard", Some("Standard (5 days)")),
            ("next-day", Some("Next day"))
        ]
    );
    assert_eq!(Extra::options(), [("giftwrap", None), ("insured", None)]);
    assert_eq!(
        <Option<Vec<Extra>> as FieldType>::field("x"),
        Field::multi_choice("x").options(["giftwrap", "insured"])
    );
}

#[test]
fn a_default_on_the_struct_makes_every_field_optional() {
    #[derive(Default, Deserialize, FormFields)]
    #[serde(default)]
    struct Prefs {
        dark: bool,
        name: String,
    }
    assert!(Prefs::form_fields().iter().all(|f| !f.is_required()));
}

#[test]
fn a_generic_struct_derives_for_its_field_types() {
    #[derive(FormFields)]
    #[expect(dead_code, reason = "only the form is read")]
    struct Pick<T> {
        value: T,
    }
    assert_eq!(
        Pick::<Speed>::form_fields(),
        [<Speed as FieldType>::field("value")]
    );
    assert_eq!(
        Pick::<u8>::form_fields(),
        [<u8 as FieldType>::field("value")]
    );
}

/// For every `rename_all` rule, a struct and an enum whose names serde
/// writes: the derive must give the same ones.
macro_rules! serde_agrees {
    ($($rule:tt => $fields:ident, $choice:ident;)*) => {$(
        #[derive(Default, Serialize, FormFields)]
        #[serde(rename_all = $rule)]
        struct $fields {
            gift_note: bool,
            r#type: bool,
            tracking_number_2: bool,
            _leading: bool,
        }

        #[derive(Serialize, FormChoice)]
        #[serde(rename_all = $rule)]
        enum $choice {
            NextDay,
            HTTPServer,
            A,
        }
    )*

        #[test]
        fn wire_names_are_serdes_for_every_rename_all_rule() {
            $(
                let mut serde_keys: Vec<String> = match serde_json::to_value($fields::default()) {
                    Ok(Value::Object(m)) => m.keys().cloned().collect(),
                    other => panic!("{other:?}"),
                };
                serde_keys.sort();
                let mut ours: Vec<String> =
                    $fields::form_fields().iter().map(|f| f.name().to_owned()).collect();
                ours.sort();
                assert_eq!(ours, serde_keys, "rename_all = {}", $rule);

                let serde_values: Vec<Value> = [$choice::NextDay, $choice::HTTPServer, $choice::A]
                    .iter()
                    .map(|v| serde_json::to_value(v).unwrap_or_else(|e| panic!("{e}")))
                    .collect();
                let ours: Vec<Value> = $choice::options().iter().map(|(v, _)| json!(v)).collect();
                assert_eq!(ours, serde_values, "rename_all = {}", $rule);
            )*
        }
    };
}

serde_agrees! {
    "lowercase" => Lower, LowerChoice;
    "UPPERCASE" => Upper, UpperChoice;
    "PascalCase" => Pascal, PascalChoice;
    "camelCase" => Camel, CamelChoice;
    "snake_case" => Snake, SnakeChoice;
    "SCREAMING_SNAKE_CASE" => ScreamingSnake, ScreamingSnakeChoice;
    "kebab-case" => Kebab, KebabChoice;
    "SCREAMING-KEBAB-CASE" => ScreamingKebab, ScreamingKebabChoice;
}

/// Every kind of field with a `default`, and the settings beside it.
#[derive(Debug, PartialEq, Deserialize, FormFields)]
#[serde(rename_all = "camelCase")]
struct Meeting {
    #[form(max_length = 60, default = "Weekly sync")]
    topic: String,
    #[form(minimum = 1, maximum = 40, default = 4)]
    attendees: Option<u32>,
    #[form(minimum = -12, maximum = 14, default = -5)]
    utc_offset: i8,
    #[form(default = 0.5)]
    hours: f64,
    #[form(default = true)]
    remote: bool,
    #[form(default = Speed::NextDay)]
    speed: Speed,
    #[form(default = [Extra::Insurance, Extra::GiftWrap], refuse_duplicates)]
    extras: Vec<Extra>,
    /// Replaced by the `description` setting.
    #[form(format = "date", default = "2027-02-01", description = "The first day")]
    starts_on: Option<String>,
    #[form(drop_if_invalid)]
    room_hint: Option<String>,
}

#[test]
fn a_default_is_in_the_schema_and_binds_back() {
    let form = Form::of::<Meeting>("Book a meeting")
        .build()
        .unwrap_or_else(|e| panic!("{e}"));
    let by_hand = Form::builder("Book a meeting")
        .field(
            Field::string("topic")
                .max_length(60)
                .default("Weekly sync")
                .required(),
        )
        .field(
            Field::integer("attendees")
                .minimum(1)
                .maximum(40)
                .default(4),
        )
        .field(
            Field::integer("utcOffset")
                .minimum(-12)
                .maximum(14)
                .default(-5)
                .required(),
        )
        .field(Field::number("hours").default(0.5).required())
        .field(Field::boolean("remote").default(true).required())
        .field(
            Field::choice("speed")
                .titled_option("standard", "Standard (5 days)")
                .titled_option("next-day", "Next day")
                .default("next-day")
                .required(),
        )
        .field(
            Field::multi_choice("extras")
                .options(["giftwrap", "insured"])
                .default(json!(["insured", "giftwrap"]))
                .refuse_duplicates()
                .required(),
        )
        .field(
            Field::date("startsOn")
                .description("The first day")
                .default("2027-02-01"),
        )
        .field(Field::string("roomHint").drop_if_invalid())
        .build()
        .unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(form, by_hand);
    let schema = form.requested_schema();
    let defaults: Vec<(&str, &Value)> = schema["properties"]
        .as_object()
        .unwrap_or_else(|| panic!("properties"))
        .iter()
        .filter_map(|(name, p)| Some((name.as_str(), p.get("default")?)))
        .collect();
    assert_eq!(defaults.len(), 8, "{defaults:?}");
    assert_eq!(schema["properties"]["attendees"]["default"], json!(4));
    assert_eq!(schema["properties"]["utcOffset"]["default"], json!(-5));
    assert_eq!(schema["properties"]["speed"]["default"], json!("next-day"));
    assert_eq!(
        schema["properties"]["extras"]["default"],
        json!(["insured", "giftwrap"])
    );
    assert_eq!(
        schema["properties"]["startsOn"]["description"],
        "The first day"
    );
    assert!(form.field("roomHint").is_some_and(Field::drops_invalid));
    // A client that submits the pre-filled values gets them back, typed.
    let content: serde_json::Map<String, Value> = defaults
        .into_iter()
        .map(|(name, value)| (name.to_owned(), value.clone()))
        .collect();
    let answer = json!({"action": "accept", "content": content});
    let Verdict::Accepted(answers) = form.validate(&answer) else {
        panic!("the defaults are not accepted")
    };
    let meeting: Meeting = answers.bind().unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(
        meeting,
        Meeting {
            topic: "Weekly sync".into(),
            attendees: Some(4),
            utc_offset: -5,
            hours: 0.5,
            remote: true,
            speed: Speed::NextDay,
            extras: vec![Extra::Insurance, Extra::GiftWrap],
            starts_on: Some("2027-02-01".into()),
            room_hint: None,
        }
    );
}

#[test]
fn a_default_on_a_variant_serde_skips_is_refused_at_build() {
    #[derive(Deserialize, FormFields)]
    #[expect(dead_code, reason = "only the form is read")]
    struct Shipping {
        #[form(default = Speed::Warehouse)]
        speed: Speed,
    }
    assert_eq!(
        Form::of::<Shipping>("Ship").build().err(),
        Some(mrtr_guard::form::FormError::DefaultWrongType {
            field: "speed".into()
        })
    );
}
