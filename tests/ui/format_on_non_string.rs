use mrtr_guard::FormFields;

#[derive(FormFields)]
struct Order {
    #[form(format = "email")]
    express: bool,
}

fn main() {
    // The impl is there despite the error: no second error where it is used.
    let _ = mrtr_guard::Form::of::<Order>("Order");
}
