use mrtr_guard::FormFields;

#[derive(FormFields)]
struct Order {
    #[form(title = "Note", pattern = "^a")]
    note: String,
}

fn main() {}
