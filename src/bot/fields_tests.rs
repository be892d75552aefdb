//! Tests of the fields, the tables and the pinned rule.

use serde_json::{json, Value};

use super::*;

fn arg(value: Value) -> Object<FieldsArg> {
    serde_json::from_value(value).unwrap()
}

fn create(value: Value) -> Result<FieldsPatch, FieldError> {
    FieldsPatch::from_arg(arg(value), PatchFor::Create)
}

fn update(value: Value) -> Result<FieldsPatch, FieldError> {
    FieldsPatch::from_arg(arg(value), PatchFor::Update)
}

fn bot(n: u8) -> BotId {
    BotId::from_random_bytes([0, 0, 0, 0, 0, n])
}

#[test]
fn the_tables_snapshot() {
    let shapes: Vec<&str> = SHAPES.iter().map(|(_, n)| *n).collect();
    assert_eq!(
        shapes,
        ["circle", "square", "rounded", "triangle", "diamond", "hexagon", "star"]
    );
    let colors: Vec<&str> = COLORS.iter().map(|(_, n)| *n).collect();
    assert_eq!(
        colors,
        ["gray", "red", "orange", "amber", "green", "teal", "blue", "indigo", "purple", "pink"]
    );
    for (shape, name) in SHAPES {
        assert_eq!(shape.as_str(), *name);
        assert_eq!(Shape::parse(name), Some(*shape));
        assert_eq!(serde_json::to_value(shape).unwrap(), json!(name));
    }
    for (color, name) in COLORS {
        assert_eq!(color.as_str(), *name);
        assert_eq!(Color::parse(name), Some(*color));
        assert_eq!(serde_json::to_value(color).unwrap(), json!(name));
    }
    assert_eq!(
        (
            MAX_NAME_CHARS,
            MAX_INSTRUCTIONS_CHARS,
            MAX_MODEL_CHARS,
            MAX_PINNED,
            DEFAULT_NAME
        ),
        (64, 32_000, 256, 3, "New bot")
    );
}

#[test]
fn create_defaults() {
    let fields = Fields::create(&create(json!({})).unwrap(), None, &[]);
    assert_eq!(
        serde_json::to_value(&fields).unwrap(),
        json!({"name":"New bot","instructions":"","model":"","provider":"","shape":"circle","color":"gray"})
    );
    let default_provider = ProviderId::parse("00000000000a").unwrap();
    let fields = Fields::create(
        &FieldsPatch::from_arg(Object::Absent, PatchFor::Create).unwrap(),
        Some(&default_provider),
        &[Color::Gray, Color::Red],
    );
    assert_eq!(fields.provider, Some(default_provider));
    assert_eq!(fields.color, Color::Orange);
    let all: Vec<Color> = COLORS.iter().map(|(c, _)| *c).collect();
    assert_eq!(first_free_color(&all), Color::Blue);
    // An explicit "" provider wins over the default.
    let fields = Fields::create(
        &create(json!({"provider": ""})).unwrap(),
        Some(&ProviderId::parse("00000000000a").unwrap()),
        &[],
    );
    assert_eq!(fields.provider, None);
}

#[test]
fn unknown_keys_and_nulls_are_ignored() {
    let patch =
        create(json!({"name": "  Ada  ", "id": "zzz", "busy": 7, "pinned": "x", "model": null}))
            .unwrap();
    assert_eq!(patch.name.as_deref(), Some("Ada"));
    assert_eq!(patch.model, None);
    assert_eq!(patch.pinned, None, "create ignores pinned");
    assert_eq!(update(json!({"pinned": true})).unwrap().pinned, Some(true));
}

#[test]
fn each_rule_is_a_typed_error() {
    let cases: Vec<(Value, FieldError)> = vec![
        (json!({"name": "   "}), FieldError::EmptyName),
        (
            json!({"name": "x".repeat(65)}),
            FieldError::NameTooLong { chars: 65 },
        ),
        (
            json!({"name": "a\u{7}b"}),
            FieldError::ControlCharacter {
                field: "name",
                shown: "\"a\\u{7}b\"".into(),
            },
        ),
        (
            json!({"instructions": "i".repeat(32_001)}),
            FieldError::InstructionsTooLong { chars: 32_001 },
        ),
        (
            json!({"model": "m".repeat(257)}),
            FieldError::ModelTooLong { chars: 257 },
        ),
        (
            json!({"model": "a\nb"}),
            FieldError::ControlCharacter {
                field: "model",
                shown: "\"a\\nb\"".into(),
            },
        ),
        (
            json!({"provider": "nope"}),
            FieldError::BadProvider {
                shown: "\"nope\"".into(),
            },
        ),
        (
            json!({"shape": "blob"}),
            FieldError::NotInTable {
                field: "shape",
                allowed: "circle, square, rounded, triangle, diamond, hexagon, star".into(),
                shown: "\"blob\"".into(),
            },
        ),
        (
            json!({"color": "Blue"}),
            FieldError::NotInTable {
                field: "color",
                allowed: "gray, red, orange, amber, green, teal, blue, indigo, purple, pink".into(),
                shown: "\"Blue\"".into(),
            },
        ),
        (
            json!({"name": 5}),
            FieldError::WrongType {
                field: "name",
                expected: "a string",
                found: "a number",
            },
        ),
    ];
    for (value, expected) in cases {
        assert_eq!(create(value.clone()).unwrap_err(), expected, "{value}");
        assert_eq!(update(value.clone()).unwrap_err(), expected, "{value}");
    }
    assert_eq!(
        update(json!({"pinned": "yes"})).unwrap_err(),
        FieldError::WrongType {
            field: "pinned",
            expected: "a boolean",
            found: "a string"
        }
    );
    assert_eq!(
        update(json!([1])).unwrap_err().to_string(),
        "patch must be an object, not an array"
    );
    assert_eq!(
        FieldsPatch::from_arg(Object::Absent, PatchFor::Update)
            .unwrap_err()
            .to_string(),
        "patch must be an object, not undefined"
    );
    assert_eq!(
        create(json!({"name": "x".repeat(65)}))
            .unwrap_err()
            .to_string(),
        "name must be at most 64 characters; it has 65"
    );
}

#[test]
fn limits_are_inclusive_and_count_characters() {
    let name = "é".repeat(64);
    assert_eq!(create(json!({ "name": name })).unwrap().name, Some(name));
    assert!(create(json!({ "instructions": "\n".repeat(32_000) })).is_ok());
    assert_eq!(
        create(json!({ "model": format!(" {} ", "m".repeat(256)) }))
            .unwrap()
            .model,
        Some("m".repeat(256)),
        "the model is trimmed before it is measured"
    );
    assert_eq!(
        create(json!({ "model": "" })).unwrap().model,
        Some(String::new())
    );
}

#[test]
fn a_new_provider_without_a_model_clears_the_model() {
    let p1 = ProviderId::parse("00000000000a").unwrap();
    let p2 = ProviderId::parse("00000000000b").unwrap();
    let mut fields = Fields::create(
        &create(json!({"provider": p1.as_str(), "model": "m1"})).unwrap(),
        None,
        &[],
    );
    // The same provider again is no change.
    let changed = fields.apply(&update(json!({"provider": p1.as_str()})).unwrap());
    assert_eq!(changed, Changed::default());
    assert_eq!(fields.model, "m1");
    let changed = fields.apply(&update(json!({"provider": p2.as_str()})).unwrap());
    assert_eq!(
        changed,
        Changed {
            provider: true,
            model: true
        }
    );
    assert_eq!(fields.model, "");
    let changed = fields.apply(&update(json!({"provider": p1.as_str(), "model": "m3"})).unwrap());
    assert_eq!((changed.provider, fields.model.as_str()), (true, "m3"));
    let changed =
        fields.apply(&update(json!({"name": "Bo", "shape": "star", "color": "pink"})).unwrap());
    assert_eq!(changed, Changed::default());
    assert_eq!(
        (fields.name.as_str(), fields.shape, fields.color),
        ("Bo", Shape::Star, Color::Pink)
    );
    let changed = fields.apply(&update(json!({"provider": ""})).unwrap());
    assert!(changed.provider);
    assert_eq!(fields.provider, None);
}

#[test]
fn stored_fields_refuse_a_bad_provider() {
    let bad = json!({"name":"a","instructions":"","model":"","provider":"XYZ","shape":"circle","color":"red"});
    assert!(serde_json::from_value::<Fields>(bad).is_err());
}

#[test]
fn the_pin_rule() {
    let ids: Vec<BotId> = (1..=5).map(bot).collect();
    let state = |pinned: &[usize]| -> Vec<(BotId, bool)> {
        ids.iter()
            .enumerate()
            .map(|(i, id)| (id.clone(), pinned.contains(&i)))
            .collect()
    };
    fn view(s: &[(BotId, bool)]) -> Vec<(&BotId, bool)> {
        s.iter().map(|(id, p)| (id, *p)).collect()
    }
    // Three pinned: a fourth fails, re-pinning one of them or unpinning passes.
    let three = state(&[0, 1, 2]);
    assert_eq!(
        check_pin(view(&three), &ids[3], true),
        Err(PinError { max: 3 })
    );
    assert_eq!(
        check_pin(view(&three), &ids[3], true)
            .unwrap_err()
            .to_string(),
        "at most 3 bots can be pinned; unpin one first"
    );
    assert_eq!(check_pin(view(&three), &ids[0], true), Ok(()));
    assert_eq!(check_pin(view(&three), &ids[3], false), Ok(()));
    let two = state(&[0, 1]);
    assert_eq!(check_pin(view(&two), &ids[4], true), Ok(()));
    assert_eq!(check_pin(Vec::new(), &ids[4], true), Ok(()));
}
