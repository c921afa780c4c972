use mrtr_guard::FormFields;
use serde::Deserialize;

#[derive(Deserialize)]
struct Address {
    city: String,
}

#[derive(Deserialize, FormFields)]
struct Order {
    #[serde(flatten)]
    address: Address,
}

fn main() {
    // The impl is there despite the error: no second error where it is used.
    let _ = mrtr_guard::Form::of::<Order>("Order");
}
