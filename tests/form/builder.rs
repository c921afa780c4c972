//! The three authoring styles, build-time errors, schema parsing errors, and
//! binding accepted answers into the user's type.

#![allow(
    clippy::panic,
    clippy::indexing_slicing,
    reason = "a test fails by panicking; Value indexing reads fixed shapes"
)]

use mrtr_guard::form::{AnswerError, BindErrorKind, FieldKind, FormError, Reason, Verdict};
use mrtr_guard::{Field, Form, form_fields};
use serde::Deserialize;
use serde_json::{Value, json};

#[derive(Debug, Deserialize, PartialEq)]
#[serde(rename_all = "camelCase")]
struct Shipping {
    tracking_number: String,
    quantity: u8,
    express: bool,
    gift_note: Option<String>,
    #[serde(default)]
    internal_id: u64,
}

form_fields!(Shipping {
    tracking_number as "trackingNumber": String => |f: Field| f.max_length(40),
    quantity: u8 => |f: Field| f.minimum(1),
    express: bool,
    gift_note as "giftNote": Option<String>,
    internal_id as "internalId": u64,
});

fn by_field() -> Form {
    Form::builder("Ship it")
        .field(Field::string("trackingNumber").max_length(40).required())
        .field(
            Field::integer("quantity")
                .minimum(1)
                .maximum(255)
                .required(),
        )
        .field(Field::boolean("express").required())
        .field(Field::string("giftNote"))
        .build()
        .unwrap_or_else(|e| panic!("{e}"))
}

fn accepted(form: &Form, content: Value) -> mrtr_guard::Answers {
    match form.validate(&json!({"action": "accept", "content": content})) {
        Verdict::Accepted(a) => a,
        other => panic!("not accepted: {other:?}"),
    }
}

#[test]
fn three_styles_build_the_same_form() {
    let from_type = Form::of::<Shipping>("Ship it")
        .exclude("internalId")
        .build()
        .unwrap_or_else(|e| panic!("{e}"));
    let mut builder = Form::builder("Ship it");
    for (name, kind, required) in [
        ("trackingNumber", FieldKind::String, true),
        ("quantity", FieldKind::Integer, true),
        ("express", FieldKind::Boolean, true),
        ("giftNote", FieldKind::String, false),
    ] {
        let field = Field::new(name, kind);
        builder.push(if required { field.required() } else { field });
    }
    let metadata = builder
        .configure("trackingNumber", |f| f.max_length(40))
        .configure("quantity", |f| f.minimum(1).maximum(255))
        .build()
        .unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(from_type, by_field());
    assert_eq!(metadata, by_field());
}

#[test]
fn overrides_change_titles_and_exclusions_remove_fields() {
    let form = Form::of::<Shipping>("Ship it")
        .configure("giftNote", |f| {
            f.title("Message on the card").description("Optional")
        })
        .exclude("internalId")
        .build()
        .unwrap_or_else(|e| panic!("{e}"));
    let schema = form.requested_schema();
    assert_eq!(
        schema["properties"]["giftNote"]["title"],
        "Message on the card"
    );
    assert_eq!(
        schema["properties"]["trackingNumber"]["title"],
        "Tracking Number"
    );
    assert!(schema["properties"].get("internalId").is_none());
    // In the struct's order, as declared.
    assert_eq!(
        schema["required"],
        json!(["trackingNumber", "quantity", "express"])
    );
}

#[test]
fn answers_bind_into_the_users_type() {
    let form = by_field();
    let answers = accepted(
        &form,
        json!({"trackingNumber": "1Z999", "quantity": 3.0, "express": false, "junk": 1}),
    );
    let ship: Shipping = answers.bind().unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(
        ship,
        Shipping {
            tracking_number: "1Z999".into(),
            quantity: 3,
            express: false,
            gift_note: None,
            internal_id: 0
        }
    );
    assert_eq!(answers.str("trackingNumber"), Ok("1Z999"));
    assert_eq!(answers.i64("quantity"), Ok(3));
    assert_eq!(answers.f64("quantity"), Ok(3.0));
    assert_eq!(answers.bool("express"), Ok(false));
    assert_eq!(
        answers.str("giftNote"),
        Err(AnswerError::Absent {
            field: "giftNote".into()
        })
    );
    assert_eq!(
        answers.str("nope"),
        Err(AnswerError::UnknownField {
            field: "nope".into()
        })
    );
    assert!(matches!(
        answers.str("quantity"),
        Err(AnswerError::WrongKind { .. })
    ));
    assert_eq!(
        answers.iter().map(|(k, _)| k).collect::<Vec<_>>(),
        ["trackingNumber", "quantity", "express"]
    );
    assert_eq!(answers.len(), 3);
}

#[test]
fn bind_errors_name_the_field_and_hide_the_value() {
    #[derive(Debug, Deserialize)]
    #[expect(dead_code, reason = "only the error is read")]
    struct Strict {
        #[serde(rename = "trackingNumber")]
        tracking: u32,
        express: bool,
        quantity: u8,
    }
    let form = by_field();
    let answers = accepted(
        &form,
        json!({"trackingNumber": "SECRET-1Z", "quantity": 3, "express": true}),
    );
    let err = answers
        .bind::<Strict>()
        .err()
        .unwrap_or_else(|| panic!("bound"));
    assert_eq!(err.field(), Some("trackingNumber"));
    assert_eq!(err.kind(), BindErrorKind::WrongType);
    assert!(!err.to_string().contains("SECRET") && !format!("{err:?}").contains("SECRET"));

    #[derive(Debug, Deserialize)]
    #[expect(dead_code, reason = "only the error is read")]
    struct NeedsNote {
        #[serde(rename = "giftNote")]
        note: String,
    }
    let err = answers
        .bind::<NeedsNote>()
        .err()
        .unwrap_or_else(|| panic!("bound"));
    assert_eq!(
        (err.field(), err.kind()),
        (Some("giftNote"), BindErrorKind::Missing)
    );
}

#[test]
fn choices_bind_into_enums_and_vectors() {
    #[derive(Debug, Deserialize, PartialEq)]
    #[serde(rename_all = "lowercase")]
    enum Speed {
        Standard,
        Express,
    }
    #[derive(Debug, Deserialize, PartialEq)]
    struct Order<'a> {
        speed: Speed,
        #[serde(borrow)]
        extras: Vec<&'a str>,
    }
    let form = Form::builder("Order")
        .field(
            Field::choice("speed")
                .titled_option("standard", "Standard")
                .titled_option("express", "Express"),
        )
        .field(Field::multi_choice("extras").options(["wrap", "card"]))
        .build()
        .unwrap_or_else(|e| panic!("{e}"));
    let answers = accepted(
        &form,
        json!({"speed": "express", "extras": ["card", "wrap"]}),
    );
    let order: Order<'_> = answers.bind().unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(
        order,
        Order {
            speed: Speed::Express,
            extras: vec!["card", "wrap"]
        }
    );
    assert_eq!(answers.strings("extras"), Ok(vec!["card", "wrap"]));
}

#[test]
fn every_build_error_names_its_field() {
    let build = |f: Field| Form::builder("m").field(f).build().err();
    let s = |x: &str| x.to_owned();
    assert_eq!(
        Form::builder(" \n").build().err(),
        Some(FormError::BlankMessage)
    );
    assert_eq!(build(Field::string("")), Some(FormError::EmptyFieldName));
    assert_eq!(
        build(Field::string("a").title("  ")),
        Some(FormError::BlankTitle { field: s("a") })
    );
    assert_eq!(
        build(Field::number("a").minimum(2).maximum(1)),
        Some(FormError::MinAboveMax {
            field: s("a"),
            keyword: "minimum"
        })
    );
    assert_eq!(
        build(
            Field::multi_choice("a")
                .option("x")
                .min_items(2)
                .max_items(1)
        ),
        Some(FormError::MinAboveMax {
            field: s("a"),
            keyword: "minItems"
        })
    );
    assert_eq!(
        build(Field::multi_choice("a")),
        Some(FormError::NoOptions { field: s("a") })
    );
    assert_eq!(
        build(Field::boolean("a").default("yes")),
        Some(FormError::DefaultWrongType { field: s("a") })
    );
    assert_eq!(
        build(Field::multi_choice("a").option("x").default(vec!["y"])),
        Some(FormError::DefaultNotOffered { field: s("a") })
    );
    assert_eq!(
        build(Field::email("a").default("not an email")),
        Some(FormError::DefaultRejected {
            field: s("a"),
            reason: Reason::BadFormat
        })
    );
    assert_eq!(
        build(Field::string("a").min_length(5).default("abc")),
        Some(FormError::DefaultRejected {
            field: s("a"),
            reason: Reason::TooShort
        })
    );
    assert_eq!(
        build(Field::integer("a").option("x")),
        Some(FormError::NotApplicable {
            field: s("a"),
            keyword: "enum"
        })
    );
    let dup = Form::builder("m")
        .field(Field::string("a"))
        .field(Field::boolean("a"))
        .build();
    assert_eq!(dup.err(), Some(FormError::DuplicateField { field: s("a") }));
    assert_eq!(
        Form::builder("m").configure("ghost", |f| f).build().err(),
        Some(FormError::UnknownField { field: s("ghost") })
    );
}

#[test]
fn schema_errors_name_keyword_and_property() {
    let parse = |schema: Value| {
        Form::from_requested_schema("m", &schema)
            .err()
            .map(|e| e.to_string())
    };
    let msg =
        |p: Value| parse(json!({"type": "object", "properties": {"x": p}})).unwrap_or_default();
    assert_eq!(
        msg(json!({"type": "string", "pattern": "^a"})),
        "field \"x\": keyword \"pattern\" is outside the form profile"
    );
    assert_eq!(
        msg(json!({"type": "object", "properties": {}})),
        "field \"x\": nested objects are outside the form profile"
    );
    assert_eq!(
        msg(json!({"$ref": "#/$defs/a"})),
        "field \"x\": $ref is outside the form profile"
    );
    assert!(msg(json!({"type": "array", "items": {"type": "object"}})).contains("multi-select"));
    assert_eq!(
        msg(json!({"type": "string", "format": "hostname"})),
        "field \"x\": format \"hostname\" is not one of email, uri, date, date-time"
    );
    assert!(
        msg(json!({"type": "string", "enum": ["a"], "enumNames": ["A", "B"]}))
            .contains("enumNames")
    );
    assert!(msg(json!({"type": "string", "oneOf": [{"const": "a"}]})).contains("oneOf"));
    assert!(
        msg(json!({"type": "string", "oneOf": [{"const": "a", "title": "A", "x": 1}]}))
            .contains("oneOf.x")
    );
    assert_eq!(
        parse(json!({"type": "object", "properties": {}, "required": ["ghost"]})),
        Some("required names \"ghost\", which is not a property".into())
    );
    assert_eq!(
        parse(json!({"type": "object", "properties": {}, "additionalProperties": false})),
        Some(
            "requestedSchema: keyword \"additionalProperties\" is outside the form profile".into()
        )
    );
    assert_eq!(
        parse(json!([])),
        Some("requestedSchema must be a JSON object".into())
    );
}

#[test]
fn metadata_field_from_schema_fragment_and_elicit_params() {
    let form = Form::builder("Pick a day")
        .field(Field::date("day").required())
        .build()
        .unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(
        form.elicit_params(),
        json!({"mode": "form", "message": "Pick a day", "requestedSchema": form.requested_schema()})
    );
    assert_eq!(form.field("day").map(Field::kind), Some(FieldKind::Date));
    assert_eq!(form.message(), "Pick a day");
}

#[derive(Debug, Deserialize, PartialEq)]
struct Counters {
    big: u64,
    small: i64,
}

form_fields!(Counters {
    big: u64,
    small: i64,
});

#[test]
fn u64_fields_take_the_whole_u64_range_and_i64_fields_the_whole_i64_range() {
    let form = Form::of::<Counters>("Counts")
        .build()
        .unwrap_or_else(|e| panic!("{e}"));
    let answers = accepted(&form, json!({"big": u64::MAX, "small": i64::MIN}));
    let bound: Counters = answers.bind().unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(
        bound,
        Counters {
            big: u64::MAX,
            small: i64::MIN
        }
    );
    assert_eq!(answers.u64("big"), Ok(u64::MAX));
    assert!(matches!(
        answers.i64("big"),
        Err(AnswerError::OutOfRange { .. })
    ));
    assert_eq!(answers.i64("small"), Ok(i64::MIN));
    // Each type's range is on the wire, and refused past it.
    let schema = form.requested_schema();
    assert_eq!(schema["properties"]["big"]["minimum"], json!(0));
    assert_eq!(schema["properties"]["big"]["maximum"], json!(u64::MAX));
    assert_eq!(schema["properties"]["small"]["maximum"], json!(i64::MAX));
    let reason =
        |content: Value| match form.validate(&json!({"action": "accept", "content": content})) {
            Verdict::Invalid(report) => report.issues().first().map(|i| i.reason()),
            other => panic!("not invalid: {other:?}"),
        };
    assert_eq!(
        reason(json!({"big": -1, "small": 0})),
        Some(Reason::BelowMinimum)
    );
    assert_eq!(
        reason(json!({"big": 0, "small": 9_223_372_036_854_775_808_u64})),
        Some(Reason::AboveMaximum)
    );
    assert_eq!(
        Form::from_requested_schema("Counts", &schema).as_ref(),
        Ok(&form),
        "the emitted u64 and i64 ranges parse back"
    );
}

#[test]
fn fractional_bounds_on_an_integer_field_round_inward() {
    let schema = json!({
        "type": "object",
        "properties": {"n": {"type": "integer", "minimum": 0.5, "maximum": 10.5}}
    });
    let form = Form::from_requested_schema("m", &schema).unwrap_or_else(|e| panic!("{e}"));
    let built = Form::builder("m")
        .field(Field::integer("n").minimum(1).maximum(10))
        .build()
        .unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(form, built, "minimum 0.5 is minimum 1, maximum 10.5 is 10");
    let emitted = form.requested_schema();
    assert_eq!(emitted["properties"]["n"]["minimum"], json!(1));
    assert_eq!(emitted["properties"]["n"]["maximum"], json!(10));
    assert_eq!(Form::from_requested_schema("m", &emitted), Ok(form.clone()));
    // The builder reads a fractional bound the same way.
    let from_builder = Form::builder("m")
        .field(Field::integer("n").minimum(0.5).maximum(10.5))
        .build();
    assert_eq!(from_builder, Ok(built));
    // Negative bounds round inward too.
    let negative = Form::from_requested_schema(
        "m",
        &json!({"type": "object", "properties": {"n": {"type": "integer", "minimum": -2.5, "maximum": -0.5}}}),
    )
    .unwrap_or_else(|e| panic!("{e}"));
    let n = &negative.requested_schema()["properties"]["n"];
    assert_eq!((&n["minimum"], &n["maximum"]), (&json!(-2), &json!(-1)));
    // Bounds that leave no integer, or lie beyond what an integer field holds, are refused.
    for (bound, keyword) in [
        (json!({"minimum": 0.2, "maximum": 0.8}), "minimum"),
        (json!({"minimum": 1e20}), "minimum"),
        (json!({"maximum": -1e19}), "maximum"),
    ] {
        let mut prop = json!({"type": "integer"});
        for (k, v) in bound.as_object().into_iter().flatten() {
            prop[k] = v.clone();
        }
        let err =
            Form::from_requested_schema("m", &json!({"type": "object", "properties": {"n": prop}}))
                .err();
        assert!(
            matches!(
                &err,
                Some(FormError::MinAboveMax { .. }) | Some(FormError::BadKeywordValue { .. })
            ),
            "{bound}: {err:?} ({keyword})"
        );
    }
}

#[test]
fn duplicates_are_removed_by_default_and_refused_on_request() {
    let roles = || Field::multi_choice("roles").options(["admin", "member"]);
    let lenient = Form::builder("m")
        .field(roles().required())
        .build()
        .unwrap_or_else(|e| panic!("{e}"));
    let answers = accepted(&lenient, json!({"roles": ["admin", "admin"]}));
    assert_eq!(answers.strings("roles"), Ok(vec!["admin"]));
    assert_eq!(answers.report().deduplicated(), ["roles"]);
    assert_eq!(
        answers.report().to_string(),
        "field \"roles\": duplicates removed"
    );

    let strict = Form::builder("m")
        .field(roles().refuse_duplicates().required())
        .build()
        .unwrap_or_else(|e| panic!("{e}"));
    let Verdict::Invalid(report) =
        strict.validate(&json!({"action": "accept", "content": {"roles": ["admin", "admin"]}}))
    else {
        panic!("duplicates accepted by a form that refuses them")
    };
    assert_eq!(report.reason("roles"), Some(Reason::DuplicateItem));
    // Refusing duplicates is the server's rule, not the wire's: the schema is the same.
    assert_eq!(strict.requested_schema(), lenient.requested_schema());

    // A default is the server's own: a repeated item is a mistake either way.
    assert_eq!(
        Form::builder("m")
            .field(roles().default(vec!["admin", "admin"]))
            .build(),
        Err(FormError::DefaultRejected {
            field: "roles".into(),
            reason: Reason::DuplicateItem
        })
    );
    assert_eq!(
        Form::builder("m")
            .field(Field::choice("c").option("a").refuse_duplicates())
            .build(),
        Err(FormError::NotApplicable {
            field: "c".into(),
            keyword: "uniqueItems"
        })
    );
}
