use mrtr_guard::FormFields;

#[derive(FormFields)]
struct Order {
    #[form(min_length = 5, max_length = 2)]
    note: String,
    #[form(minimum = 2.5, maximum = -1)]
    weight: f64,
}

fn main() {
    // The impl is there despite the error: no second error where it is used.
    let _ = mrtr_guard::Form::of::<Order>("Order");
}
