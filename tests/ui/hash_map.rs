use std::collections::HashMap;

use mrtr_guard::FormFields;

#[derive(FormFields)]
struct Booking {
    topic: String,
    #[form(title = "Labels")]
    labels: HashMap<String, String>,
}

fn main() {
    let _ = mrtr_guard::Form::of::<Booking>("Book a meeting");
}
