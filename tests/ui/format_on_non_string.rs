use mrtr_guard::FormFields;

#[derive(FormFields)]
struct Order {
    #[form(format = "email")]
    express: bool,
}

fn main() {}
