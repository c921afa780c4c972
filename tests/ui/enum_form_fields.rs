use mrtr_guard::FormFields;

#[derive(FormFields)]
enum Speed {
    Standard,
    Express,
}

fn main() {}
