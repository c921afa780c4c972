use mrtr_guard::FormFields;

#[derive(FormFields)]
struct Order {
    #[form(maximum = 300)]
    quantity: u8,
    #[form(minimum = 0.5)]
    count: u32,
}

fn main() {
    // The impl is there despite the error: no second error where it is used.
    let _ = mrtr_guard::Form::of::<Order>("Order");
}
