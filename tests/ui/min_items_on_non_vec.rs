use mrtr_guard::FormFields;

#[derive(FormFields)]
struct Order {
    #[form(min_items = 1)]
    tags: Option<String>,
}

fn main() {}
