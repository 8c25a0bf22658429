//! Configs over existing tables: `table:`, `column:`, keys, `foreign_key:` and `join_table:`,
//! lowered into the spec, and every way to get them wrong reported where it is written.

use toolforge::spec::{EdgeMapping, FieldType, TableRef};

use crate::common::{at, fail, find, hint, ok};

const MAPPED: &str = "\
entities:
  - name: Customer
    table: sales.\"Customer List\"
    unique_field: id
    searchable_fields:
      - {name: id, column: CustomerId, type: integer}
      - {name: name, column: \"Full Name\", type: string}
      - {name: manager_id, column: ManagerId, type: integer}
    relationships:
      - {type: MANAGED_BY, target: Customer, foreign_key: ManagerId}
      - type: BOUGHT
        target: Product
        join_table: {table: sales.order_line, source_column: customer_id, target_column: sku}
        properties:
          - {name: quantity, column: qty, type: integer}
  - name: Product
    table: Product
    unique_field: sku
    searchable_fields:
      - {name: sku, type: string}
";

#[test]
fn a_mapped_config_lowers_to_tables_columns_and_edge_sources() {
    let spec = ok(MAPPED).spec;
    assert!(spec.is_mapped());
    let customer = &spec.entities[0];
    assert_eq!(
        customer.source,
        Some(TableRef {
            schema: Some("sales".into()),
            name: "Customer List".into()
        })
    );
    assert_eq!(customer.table, "customer__mapped");
    assert_eq!(
        customer.fields.len(),
        3,
        "no `uuid` is added to a mapped table"
    );
    let id = customer.field("id").unwrap();
    assert_eq!(
        (id.ty, id.column_name(), id.unique),
        (FieldType::Integer, "CustomerId", true)
    );
    assert_eq!(customer.field("name").unwrap().column_name(), "Full Name");
    let managed = &spec.relationships[0];
    assert_eq!(
        managed.mapping,
        Some(EdgeMapping::ForeignKey {
            column: "ManagerId".into()
        })
    );
    let bought = &spec.relationships[1];
    assert_eq!(
        bought.mapping,
        Some(EdgeMapping::JoinTable {
            table: TableRef {
                schema: Some("sales".into()),
                name: "order_line".into()
            },
            source_column: "customer_id".into(),
            target_column: "sku".into()
        })
    );
    assert_eq!(bought.properties[0].column_name(), "qty");
    assert_eq!(bought.table, "customer__bought__product__mapped");
    // None of the user's tables is one toolforge would create.
    assert!(
        toolforge::sql::ddl::schema_objects(&spec)
            .unwrap()
            .is_empty()
    );
}

#[test]
fn every_entity_of_a_mapped_config_names_its_table() {
    let source = MAPPED.replace("    table: Product\n", "");
    let errors = fail(&source);
    let error = find(&errors, "`Product` names no `table:`");
    at(error, 16, 11, "entities[1].name");
    assert!(hint(error).contains("toolforge init --from-db"), "{error}");
}

#[test]
fn a_table_name_that_cannot_be_read_is_located() {
    let source = MAPPED.replace("table: Product", "table: a.b.c");
    let errors = fail(&source);
    let error = find(&errors, "`table: a.b.c` cannot be read");
    at(error, 17, 12, "entities[1].table");
    let source = MAPPED.replace("table: Product", "table: '\"Product'");
    let error = find(&fail(&source), "a double quote is not closed").clone();
    assert_eq!(error.path, "entities[1].table");
}

#[test]
fn a_mapped_key_is_a_listed_text_or_integer_field() {
    let source = MAPPED.replace("    unique_field: sku\n", "");
    let errors = fail(&source);
    let error = find(&errors, "the key `uuid` of `Product` is none of its fields");
    assert!(hint(error).contains("primary key"), "{error}");
    let source = MAPPED.replace("{name: sku, type: string}", "{name: sku, type: datetime}");
    let errors = fail(&source);
    let error = find(&errors, "the key `sku` of `Product` is a `datetime` field");
    at(error, 20, 27, "entities[1].searchable_fields[0].type");
    assert!(hint(error).contains("composite key"), "{error}");
}

#[test]
fn a_relationship_between_mapped_tables_says_where_its_edges_are() {
    let source = MAPPED.replace(", foreign_key: ManagerId}", "}");
    let errors = fail(&source);
    let error = find(&errors, "says neither `foreign_key:` nor `join_table:`");
    at(error, 10, 16, "entities[0].relationships[0].type");
    let source = MAPPED.replace(
        "foreign_key: ManagerId}",
        "foreign_key: ManagerId, properties: [{name: since, type: datetime}]}",
    );
    find(
        &fail(&source),
        "is a foreign key column, which has no properties",
    );
    let source = MAPPED.replace("target_column: sku", "target_column: customer_id");
    find(&fail(&source), "name the same column");
}

#[test]
fn what_lives_in_the_side_store_is_accepted_and_what_would_change_a_table_is_refused() {
    // A full-text index and change tracking are kept in the side store: no error.
    let source = MAPPED.replace(
        "    searchable_fields:\n      - {name: sku, type: string}\n",
        "    searchable_fields:\n      - {name: sku, type: string}\n    full_text_index: {fields: [sku]}\n    track_changes: true\n",
    );
    let spec = ok(&source).spec;
    assert!(spec.entities[1].has_side_changes());
    assert!(spec.change_log.is_some());
    // A materialized computed field would add a column to the user's table.
    let source = MAPPED.replace(
        "    searchable_fields:\n      - {name: sku, type: string}\n",
        "    searchable_fields:\n      - {name: sku, type: string}\n    computed_fields:\n      - {name: code, type: string, expression: \"upper(sku)\", materialized: true}\n",
    );
    let errors = fail(&source);
    let error = find(&errors, "`code` cannot be materialized");
    assert!(hint(error).contains("remove `materialized`"), "{error:?}");
}

#[test]
fn mapping_keys_on_toolforges_own_tables_are_refused() {
    let source = "\
entities:
  - name: Note
    searchable_fields:
      - {name: title, column: Title, type: string}
    relationships:
      - {type: CITES, target: Note, foreign_key: cites}
";
    let errors = fail(source);
    let column = find(
        &errors,
        "`column:` maps a field onto an existing table's column",
    );
    at(column, 4, 31, "entities[0].searchable_fields[0].column");
    find(
        &errors,
        "`foreign_key:` reads a relationship from an existing table",
    );
}

#[test]
fn integer_fields_are_whole_numbers_in_own_tables_too() {
    let spec = ok("\
entities:
  - name: Note
    searchable_fields:
      - {name: pages, type: integer}
")
    .spec;
    assert_eq!(
        spec.entities[0].field("pages").unwrap().ty,
        FieldType::Integer
    );
    assert!(
        toolforge::sql::ddl::schema_sql(&spec)
            .unwrap()
            .contains("\"pages\" INTEGER")
    );
}

#[test]
fn a_vector_index_reads_a_column_of_an_existing_table_only_as_it_is() {
    // On a mapped entity: the user's own column, read as it is.
    let source = MAPPED.replace(
        "    searchable_fields:\n      - {name: sku, type: string}\n",
        "    searchable_fields:\n      - {name: sku, type: string}\n    vector_indexes:\n      - {name: by_text, column: embedding, dimension: 384}\n",
    );
    let spec = ok(&source).spec;
    let index = &spec.entities[1].vector_indexes[0];
    assert_eq!(index.existing_column.as_deref(), Some("embedding"));
    assert!(!spec.entities[1].has_side_vectors());
    // With a source field too: toolforge would have to write the user's column.
    let both = source.replace(
        "{name: by_text, column: embedding, dimension: 384}",
        "{name: by_text, column: embedding, source_field: sku, dimension: 384}",
    );
    let errors = fail(&both);
    let error = find(
        &errors,
        "reads the vectors of your column `embedding` as they are",
    );
    assert!(hint(error).contains("remove `source_field`"), "{error:?}");
    // On an entity toolforge creates, there is no table of the user's to read.
    let own = "\
entities:
  - name: Note
    searchable_fields:
      - {name: title, type: string}
    vector_indexes:
      - {name: by_title, column: embedding, source_field: title, dimension: 8}
";
    let errors = fail(own);
    let error = find(
        &errors,
        "`column:` reads the vectors of vector index `by_title`",
    );
    at(error, 6, 34, "entities[0].vector_indexes[0].column");
}
