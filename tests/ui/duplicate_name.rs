use mrtr_guard::FormFields;
use serde::Deserialize;

#[derive(Deserialize, FormFields)]
#[serde(rename_all = "camelCase")]
struct Order {
    gift_note: String,
    #[serde(rename = "giftNote")]
    note: String,
}

fn main() {}
