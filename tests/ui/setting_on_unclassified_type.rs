use mrtr_guard::FormFields;

type Count = u32;

#[derive(FormFields)]
struct Order {
    #[form(max_length = 3)]
    quantity: Count,
}

fn main() {
    // The impl is there despite the error: no second error where it is used.
    let _ = mrtr_guard::Form::of::<Order>("Order");
}
