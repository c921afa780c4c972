use mrtr_guard::FormFields;

#[derive(FormFields)]
struct Order {
    #[form(min_length = 1)]
    quantity: Option<u8>,
}

fn main() {}
