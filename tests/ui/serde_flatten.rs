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

fn main() {}
