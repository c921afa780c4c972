use mrtr_guard::FormFields;

#[derive(FormFields)]
struct Order {
    #[form(format = "hostname")]
    host: String,
}

fn main() {}
