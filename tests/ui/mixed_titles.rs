use mrtr_guard::FormChoice;

#[derive(FormChoice)]
enum Speed {
    #[form(title = "Standard (5 days)")]
    Standard,
    Express,
}

fn main() {}
