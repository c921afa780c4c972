//! `#[derive(FormChoice)]`: the variants of a unit-only enum as the options
//! of a choice, in declaration order.

use proc_macro2::{Span, TokenStream};
use quote::quote;
use syn::{Data, DeriveInput, Error, Fields, Result, Variant};

use crate::case::Case;
use crate::names::{Errors, check_unique, wire};
use crate::serde_attrs::{Container, ENUM_REFUSES, Member, VARIANT_REFUSES};
use crate::settings::{refuse_on_type, variant_title};

/// The `impl FormChoice` for `input`.
pub(crate) fn expand(input: &DeriveInput) -> Result<TokenStream> {
    let Data::Enum(data) = &input.data else {
        return Err(Error::new_spanned(
            &input.ident,
            "FormChoice derives for an enum of unit variants",
        ));
    };
    refuse_on_type(&input.attrs)?;
    let container = Container::parse(&input.attrs, ENUM_REFUSES)?;
    let mut errors = Errors::default();
    let parsed: Vec<(&syn::Ident, Option<Offered>)> = data
        .variants
        .iter()
        .filter_map(|v| Some((&v.ident, errors.keep(Offered::parse(v, &container))?)))
        .collect();
    errors.finish()?;
    let offered: Vec<&Offered> = parsed.iter().filter_map(|(_, o)| o.as_ref()).collect();
    check_offered(&offered, &input.ident)?;

    let ident = &input.ident;
    let (impl_generics, ty_generics, where_clause) = input.generics.split_for_impl();
    let options = offered.iter().map(|o| {
        let value = &o.wire;
        let title = match &o.title {
            Some(t) => quote!(::core::option::Option::Some(#t)),
            None => quote!(::core::option::Option::None),
        };
        quote!((#value, #title))
    });
    let arms = parsed.iter().map(|(variant, offered)| match offered {
        Some(o) => {
            let value = &o.wire;
            quote!(Self::#variant => ::core::option::Option::Some(#value))
        }
        None => quote!(Self::#variant => ::core::option::Option::None),
    });
    Ok(quote! {
        #[automatically_derived]
        impl #impl_generics ::mrtr_guard::FormChoice for #ident #ty_generics #where_clause {
            fn options() -> &'static [(&'static str, ::core::option::Option<&'static str>)] {
                &[#(#options),*]
            }
        }
        #[automatically_derived]
        impl #impl_generics ::mrtr_guard::__private::ChoiceValue for #ident #ty_generics #where_clause {
            fn wire_value(&self) -> ::core::option::Option<&'static str> {
                match self {
                    #(#arms,)*
                }
            }
        }
    })
}

/// Impls that offer nothing, beside the errors of a derive that failed: the
/// mistake is reported once, where it was made, not again where the type is
/// used.
pub(crate) fn fallback(input: &DeriveInput) -> TokenStream {
    let mut tokens = crate::empty_impl(
        input,
        quote!(::mrtr_guard::FormChoice),
        quote! {
            fn options() -> &'static [(&'static str, ::core::option::Option<&'static str>)] {
                &[]
            }
        },
    );
    tokens.extend(crate::empty_impl(
        input,
        quote!(::mrtr_guard::__private::ChoiceValue),
        quote! {
            fn wire_value(&self) -> ::core::option::Option<&'static str> {
                ::core::option::Option::None
            }
        },
    ));
    tokens
}

/// A variant offered as an option.
struct Offered {
    wire: String,
    title: Option<String>,
    span: Span,
}

impl Offered {
    /// The variant as an option, or `None` when serde skips it.
    fn parse(variant: &Variant, container: &Container) -> Result<Option<Self>> {
        if !matches!(variant.fields, Fields::Unit) {
            return Err(Error::new_spanned(
                &variant.fields,
                "FormChoice takes unit variants only: an option is a plain string",
            ));
        }
        let mut errors = Errors::default();
        let title = errors.keep(variant_title(&variant.attrs));
        let serde = errors.keep(Member::parse(&variant.attrs, VARIANT_REFUSES));
        errors.finish()?;
        let (Some(title), Some(serde)) = (title, serde) else {
            return Ok(None);
        };
        Ok((!serde.skip).then(|| Self {
            wire: wire(
                serde.rename,
                &variant.ident,
                container.rename_all,
                Case::variant,
            ),
            title: title.map(|t| t.value),
            span: variant.ident.span(),
        }))
    }
}

/// At least one option, distinct non-empty values, all titled or none.
fn check_offered(offered: &[&Offered], ident: &syn::Ident) -> Result<()> {
    let Some(first) = offered.first() else {
        return Err(Error::new_spanned(
            ident,
            "FormChoice needs at least one variant to offer",
        ));
    };
    let titled = first.title.is_some();
    if let Some(odd) = offered.iter().find(|o| o.title.is_some() != titled) {
        return Err(Error::new(
            odd.span,
            "give every offered variant a #[form(title = \"...\")] or none: \
             the form profile does not mix titled and untitled options",
        ));
    }
    check_unique(
        offered.iter().map(|o| (o.wire.as_str(), o.span)),
        "option value",
    )
}
