//! Schemas other tools produce for the form profile parse:
//! `Form::from_requested_schema` ignores annotations (top-level `title`,
//! `description`, `$schema`; `examples`, `$comment` and `x-*` anywhere a
//! property or its `items` may carry them) and stays strict about every
//! keyword that changes validation.
//!
//! `tests/data/schemas/pydantic.json` is pydantic's `model_json_schema()`
//! output, made by `pydantic_model.py` beside it.

#![allow(
    clippy::panic,
    clippy::indexing_slicing,
    reason = "a test fails by panicking; Value indexing reads fixed shapes"
)]

use std::path::PathBuf;

use mrtr_guard::form::{FormError, Verdict};
use mrtr_guard::{Field, Form};
use serde_json::{Value, json};

fn data(name: &str) -> String {
    let path = PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("tests/data/schemas")
        .join(name);
    std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

fn build(message: &str, fields: Vec<Field>) -> Form {
    fields
        .into_iter()
        .fold(Form::builder(message), mrtr_guard::form::FormBuilder::field)
        .build()
        .unwrap_or_else(|e| panic!("{e}"))
}

/// What `pydantic_model.py` declares, field by field, in its order.
fn pydantic_form() -> Form {
    build(
        "Create your account.",
        vec![
            Field::string("full_name")
                .min_length(1)
                .max_length(100)
                .title("Full Name")
                .description("As on your passport")
                .required(),
            Field::email("email").title("Email").required(),
            Field::uri("homepage")
                .min_length(1)
                .title("Homepage")
                .default("https://example.com/"),
            Field::date("birthday")
                .title("Birthday")
                .default("1815-12-10"),
            Field::date_time("meeting_at")
                .title("Meeting At")
                .required(),
            Field::integer("team_size")
                .minimum(2)
                .maximum(500)
                .title("Team Size")
                .required(),
            Field::number("score")
                .minimum(-1.5)
                .maximum(100)
                .title("Score")
                .default(0.5),
            Field::boolean("newsletter")
                .title("Newsletter")
                .default(false),
            Field::choice("plan")
                .options(["pro", "team"])
                .title("Plan")
                .default("pro"),
            Field::multi_choice("roles")
                .options(["admin", "billing", "member"])
                .min_items(1)
                .max_items(3)
                .title("Roles")
                .required(),
        ],
    )
}

#[test]
fn a_pydantic_model_schema_parses_in_its_order() {
    let text = data("pydantic.json");
    let form = Form::from_requested_schema_json("Create your account.", &text)
        .unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(form, pydantic_form());
    // From a `Value` too (fields then sorted by name).
    let value: Value = serde_json::from_str(&text).unwrap_or_else(|e| panic!("{e}"));
    let from_value = Form::from_requested_schema("Create your account.", &value)
        .unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(
        from_value.requested_schema()["properties"],
        form.requested_schema()["properties"]
    );
    let answer = json!({"action": "accept", "content": {
        "full_name": "Ada Lovelace", "email": "ada@example.com",
        "meeting_at": "2024-02-29T12:00:00Z", "team_size": 12, "roles": ["admin", "member"]
    }});
    assert!(matches!(form.validate(&answer), Verdict::Accepted(a) if a.report().is_clean()));
}

/// A change to the pydantic schema.
type Edit = fn(&mut Value);

/// The pydantic schema with `edit` applied.
fn pydantic_with(edit: impl FnOnce(&mut Value)) -> Result<Form, FormError> {
    let mut value: Value =
        serde_json::from_str(&data("pydantic.json")).unwrap_or_else(|e| panic!("{e}"));
    edit(&mut value);
    Form::from_requested_schema("m", &value)
}

#[test]
fn annotations_are_ignored_anywhere_a_property_may_carry_them() {
    let form = pydantic_with(|v| {
        v["$schema"] = json!("https://json-schema.org/draft/2020-12/schema");
        v["$comment"] = json!("made by a tool");
        v["x-vendor"] = json!({"anything": [1, 2]});
        v["examples"] = json!([{}]);
        let plan = &mut v["properties"]["plan"];
        plan["$comment"] = json!("two plans");
        plan["x-order"] = json!(3);
        plan["examples"] = json!(["team"]);
        v["properties"]["roles"]["items"]["x-ui"] = json!("checkboxes");
        v["properties"]["roles"]["items"]["$comment"] = json!("roles");
    });
    // From a `Value`: fields sorted by name, so compare what each says.
    assert_eq!(
        form.map(|f| f.requested_schema()["properties"].clone()),
        Ok(pydantic_form().requested_schema()["properties"].clone())
    );
}

#[test]
fn keywords_that_change_validation_are_still_refused() {
    let unsupported = |field: Option<&str>, keyword: &str| {
        Err(FormError::UnsupportedKeyword {
            field: field.map(str::to_owned),
            keyword: keyword.to_owned(),
        })
    };
    let cases: Vec<(Edit, Result<Form, FormError>)> = vec![
        (
            |v| v["additionalProperties"] = json!(false),
            unsupported(None, "additionalProperties"),
        ),
        (
            |v| v["properties"]["full_name"]["pattern"] = json!("^[A-Z]"),
            unsupported(Some("full_name"), "pattern"),
        ),
        (
            |v| v["properties"]["team_size"]["exclusiveMinimum"] = json!(1),
            unsupported(Some("team_size"), "exclusiveMinimum"),
        ),
        (
            |v| v["properties"]["team_size"]["multipleOf"] = json!(2),
            unsupported(Some("team_size"), "multipleOf"),
        ),
        (
            |v| v["properties"]["roles"]["uniqueItems"] = json!(true),
            unsupported(Some("roles"), "uniqueItems"),
        ),
        (
            |v| v["properties"]["plan"]["const"] = json!("pro"),
            unsupported(Some("plan"), "const"),
        ),
        (
            |v| v["properties"]["roles"]["items"]["minLength"] = json!(1),
            unsupported(Some("roles"), "items.minLength"),
        ),
        (|v| v["$defs"] = json!({}), unsupported(None, "$defs")),
        (
            |v| v["title"] = json!(7),
            Err(FormError::BadKeywordValue {
                field: None,
                keyword: "title",
            }),
        ),
        (
            |v| v["properties"]["plan"]["$comment"] = json!(7),
            Err(FormError::BadKeywordValue {
                field: Some("plan".into()),
                keyword: "$comment",
            }),
        ),
        (
            |v| v["properties"]["plan"]["examples"] = json!("pro"),
            Err(FormError::BadKeywordValue {
                field: Some("plan".into()),
                keyword: "examples",
            }),
        ),
    ];
    for (edit, expected) in cases {
        let got = pydantic_with(edit);
        assert_eq!(got, expected);
    }
}

#[cfg(feature = "rmcp")]
mod rmcp_schemas {
    use rmcp::model::{ElicitationSchema, EnumSchema, StringSchema};
    use rmcp::schemars::JsonSchema;
    use serde::Deserialize;

    use super::*;

    /// A type as an rmcp server author writes it for `from_type`.
    #[allow(dead_code, reason = "only its schema is used")]
    #[derive(Deserialize, JsonSchema)]
    #[schemars(crate = "rmcp::schemars")]
    #[serde(rename_all = "camelCase")]
    struct Signup {
        /// Your full name
        full_name: String,
        email: String,
        age: u32,
        score: f64,
        newsletter: bool,
        nickname: Option<String>,
    }

    /// rmcp's schemars-made schema (`ElicitationSchema::from_type`): a
    /// draft-07 `$schema`, the type's doc comment as top-level
    /// `description`, its name as `title`.
    #[test]
    fn an_rmcp_from_type_schema_parses() {
        let schema = ElicitationSchema::from_type::<Signup>().unwrap_or_else(|e| panic!("{e}"));
        let text = serde_json::to_string(&schema).unwrap_or_else(|e| panic!("{e}"));
        let form = Form::from_requested_schema_json("Sign up", &text)
            .unwrap_or_else(|e| panic!("{text}: {e}"));
        let expected = build(
            "Sign up",
            vec![
                Field::integer("age").minimum(0).required(),
                Field::string("email").required(),
                Field::string("fullName")
                    .description("Your full name")
                    .required(),
                Field::boolean("newsletter").required(),
                Field::string("nickname"),
                Field::number("score").required(),
            ],
        );
        assert_eq!(form, expected, "{text}");
    }

    /// rmcp's builder, every kind it offers.
    #[test]
    fn an_rmcp_builder_schema_parses() {
        let schema = ElicitationSchema::builder()
            .required_string_with("name", |s| s.min_length(1).max_length(50))
            .required_email("email")
            .optional_string_with("site", |_| StringSchema::uri())
            .optional_string_with("day", |_| StringSchema::date())
            .required_integer("age", 0, 150)
            .optional_number("ratio", 0.0, 1.0)
            .optional_bool("ok", false)
            .required_enum_schema(
                "plan",
                EnumSchema::builder(vec!["pro".into(), "team".into()]).build(),
            )
            .title("Sign up")
            .description("Who you are")
            .build()
            .unwrap_or_else(|e| panic!("{e}"));
        let text = serde_json::to_string(&schema).unwrap_or_else(|e| panic!("{e}"));
        let form = Form::from_requested_schema_json("Sign up", &text)
            .unwrap_or_else(|e| panic!("{text}: {e}"));
        let expected = build(
            "Sign up",
            vec![
                Field::integer("age").minimum(0).maximum(150).required(),
                Field::date("day"),
                Field::email("email").required(),
                Field::string("name")
                    .min_length(1)
                    .max_length(50)
                    .required(),
                Field::boolean("ok").default(false),
                Field::choice("plan").options(["pro", "team"]).required(),
                Field::number("ratio").minimum(0).maximum(1),
                Field::uri("site"),
            ],
        );
        assert_eq!(form, expected, "{text}");
    }

    /// Our ordered schema text read by rmcp keeps its order (rmcp keeps the
    /// wire order of properties it deserializes from text).
    #[test]
    fn rmcp_reads_our_schema_in_declaration_order() {
        let form = pydantic_form();
        let text = form.schema().to_json_string();
        let schema: ElicitationSchema =
            serde_json::from_str(&text).unwrap_or_else(|e| panic!("{e}"));
        let again = serde_json::to_string(&schema).unwrap_or_else(|e| panic!("{e}"));
        let back = Form::from_requested_schema_json(form.message(), &again)
            .unwrap_or_else(|e| panic!("{again}: {e}"));
        let names: Vec<&str> = back.fields().iter().map(Field::name).collect();
        assert_eq!(
            names,
            [
                "full_name",
                "email",
                "homepage",
                "birthday",
                "meeting_at",
                "team_size",
                "score",
                "newsletter",
                "plan",
                "roles"
            ]
        );
    }
}
