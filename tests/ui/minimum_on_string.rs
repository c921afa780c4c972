use mrtr_guard::FormFields;

#[derive(FormFields)]
struct Order {
    #[form(minimum = 1)]
    note: String,
}

fn main() {}
