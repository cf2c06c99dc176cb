"""HTTP routes, one APIRouter per area: api (/api/v1), health, pages, embed."""
