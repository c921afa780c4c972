use mrtr_guard::FormFields;
use serde::Deserialize;

#[derive(Deserialize, FormFields)]
#[serde(rename_all = "camelCase")]
struct Order {
    gift_note: String,
    #[serde(rename = "giftNote")]
    note: String,
}

fn main() {
    // The impl is there despite the error: no second error where it is used.
    let _ = mrtr_guard::Form::of::<Order>("Order");
}
